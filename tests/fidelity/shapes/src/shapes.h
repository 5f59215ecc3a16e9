#pragma once
#include <vector>

namespace geo {
class Shape {
public:
    explicit Shape(int kind) : kind_(kind) {}
    virtual ~Shape() {}
    virtual double area() const = 0;
    int kind() const { return kind_; }
private:
    int kind_;
};
class Square : public Shape {
public:
    explicit Square(double s) : Shape(1), s_(s) {}
    double area() const override { return s_ * s_; }
private:
    double s_;
};
class Circle : public Shape {
public:
    explicit Circle(double r) : Shape(2), r_(r) {}
    double area() const override { return 3.14159 * r_ * r_; }
private:
    double r_;
};
class Polygon : public Shape {
public:
    explicit Polygon(int n) : Shape(3), pts_(static_cast<unsigned>(n % 5 + 3), 1.0) {}
    double area() const override { return static_cast<double>(pts_.size()); }
private:
    std::vector<double> pts_;
};
}  // namespace geo
