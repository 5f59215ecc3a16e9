#include "person.h"

#include <utility>

namespace bank {

int Person::next_sin_ = 123456789;

Person::Person(std::string name) : sin_(next_sin_++), name_(std::move(name)) {}

std::ostream& operator<<(std::ostream& os, const Person& p) {
    os << "Person[sin=" << p.sin_ << ", name=" << p.name_ << "] ";
    if (p.account_ != nullptr) os << *p.account_;
    return os;
}

}  // namespace bank
