#pragma once
#include <ostream>
#include <string>

#include "account.h"

namespace bank {

// A customer with an identifying number and one account.
class Person {
public:
    explicit Person(std::string name);

    int sin() const { return sin_; }
    const std::string& name() const { return name_; }
    Account* account() const { return account_; }
    void set_account(Account* account) { account_ = account; }

    friend std::ostream& operator<<(std::ostream& os, const Person& p);

private:
    static int next_sin_;
    int sin_;
    std::string name_;
    Account* account_ = nullptr;
};

}  // namespace bank
