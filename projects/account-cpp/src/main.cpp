#include <iostream>

#include "account.h"
#include "person.h"

// Opens three accounts, moves money between them and prints who owns what.
int main() {
    using bank::Account;
    using bank::Person;
    Person will("Will");
    Account will_acct(1000.0);
    will.set_account(&will_acct);

    Person duane("Duane");
    Account duane_acct(1000.0);
    duane.set_account(&duane_acct);

    Person jonathan("Jonathan");
    Account jonathan_acct(1000.0);
    jonathan.set_account(&jonathan_acct);

    duane_acct.transfer(100.0, will_acct);
    jonathan_acct.transfer(100.0, will_acct);
    will_acct.transfer(5000.0, duane_acct);  // refused: overdraft

    std::cout << will << "\n" << duane << "\n" << jonathan << "\n";
    return 0;
}
