#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

class Shape {
public:
    Shape() : Shape("shape") {}
    explicit Shape(std::string name) : name_(std::move(name)) {}
    virtual ~Shape() { std::cout << "~Shape " << name_ << "\n"; }
    virtual double area() const = 0;
    virtual std::string describe() const { return name_ + " of area " + std::to_string(area()); }
    const std::string& name() const { return name_; }

protected:
    std::string name_;
};

class Square : public Shape {
public:
    explicit Square(double side) : Shape("square"), side_(side) {}
    double area() const override { return side_ * side_; }
    std::string describe() const final { return "[" + Shape::describe() + "]"; }

private:
    double side_;
};

class Circle final : public Shape {
public:
    Circle(double r) : Shape("circle"), r_(r) {}
    double area() const override { return 3.0 * r_ * r_; }

private:
    double r_;
};

// Uses Shape's delegating default constructor.
class Blob : public Shape {
public:
    Blob() {}
    double area() const override { return 0.5; }
};

class Printable {
public:
    virtual ~Printable() = default;
    virtual void print(std::ostream& os) const = 0;
};

class Named {
public:
    explicit Named(const char* n) : n_(n) {}
    const char* tag() const { return n_; }

private:
    const char* n_;
};

// Multiple inheritance.
class Label : public Printable, public Named {
public:
    Label(const char* n, int w) : Named(n), w_(w) {}
    void print(std::ostream& os) const override { os << tag() << "/" << w_; }

private:
    int w_;
};

// Copy/move constructors and assignments, defaulted and deleted.
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t n) : data_(n, 7) {}
    Buffer(const Buffer& o) : data_(o.data_) { ++copies; }
    Buffer(Buffer&& o) noexcept : data_(std::move(o.data_)) { ++moves; }
    Buffer& operator=(const Buffer& o) {
        data_ = o.data_;
        ++copies;
        return *this;
    }
    Buffer& operator=(Buffer&&) = default;
    std::size_t size() const { return data_.size(); }
    static int copies;
    static int moves;

private:
    std::vector<int> data_;
};
int Buffer::copies = 0;
int Buffer::moves = 0;

class Unique {
public:
    Unique() = default;
    Unique(const Unique&) = delete;
    Unique& operator=(const Unique&) = delete;
    int id() const { return 42; }
};

// Exceptions crossing instrumented functions.
class Parser {
public:
    int parse(const std::string& s) {
        if (s.empty()) throw std::invalid_argument("empty");
        return check(std::stoi(s));
    }
    int check(int v) {
        if (v < 0) throw std::out_of_range("negative");
        return v;
    }
    int safe(const std::string& s) {
        try {
            return parse(s);
        } catch (const std::exception& e) {
            std::cout << "error: " << e.what() << "\n";
            return -1;
        }
    }
};

int main() {
    std::vector<std::unique_ptr<Shape>> shapes;
    shapes.push_back(std::make_unique<Square>(2));
    shapes.push_back(std::make_unique<Circle>(1));
    shapes.push_back(std::make_unique<Blob>());
    for (const auto& s : shapes) std::cout << s->describe() << " " << s->name() << "\n";
    Label l("lbl", 3);
    const Printable& p = l;
    p.print(std::cout);
    std::cout << "\n";
    Buffer a(3);
    Buffer b = a;
    Buffer c = std::move(b);
    b = c;
    c = std::move(a);
    std::cout << Buffer::copies << " " << Buffer::moves << " " << c.size() << "\n";
    Unique u;
    Parser ps;
    std::cout << ps.safe("12") << " " << ps.safe("") << " " << ps.safe("-3") << " " << u.id()
              << "\n";
    try {
        ps.parse("-1");
    } catch (const std::out_of_range& e) {
        std::cout << "caught " << e.what() << "\n";
    }
    return 0;
}
