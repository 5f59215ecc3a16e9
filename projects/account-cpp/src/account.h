#pragma once
#include <ostream>

namespace bank {

// A bank account that takes deposits, refuses overdrafts and transfers money.
class Account {
public:
    explicit Account(double opening);
    ~Account();

    int number() const { return number_; }
    double balance() const;

    void deposit(double amount);
    bool withdraw(double amount);
    bool transfer(double amount, Account& to);

    friend std::ostream& operator<<(std::ostream& os, const Account& a);

private:
    static int next_number_;
    int number_;
    double balance_;
};

}  // namespace bank
