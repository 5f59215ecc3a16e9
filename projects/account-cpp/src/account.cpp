#include "account.h"

#include <iostream>

namespace bank {

int Account::next_number_ = 654321;

Account::Account(double opening) : number_(next_number_++), balance_(opening) {}

Account::~Account() {}

double Account::balance() const { return balance_; }

void Account::deposit(double amount) { balance_ += amount; }

bool Account::withdraw(double amount) {
    if (balance_ < amount) {
        std::cerr << "Sorry, not enough money in account " << number_ << "\n";
        return false;
    }
    balance_ -= amount;
    return true;
}

bool Account::transfer(double amount, Account& to) {
    if (withdraw(amount)) {
        to.deposit(amount);
        return true;
    }
    return false;
}

std::ostream& operator<<(std::ostream& os, const Account& a) {
    return os << "Account[number=" << a.number_ << ", balance=" << a.balance_ << "]";
}

}  // namespace bank
