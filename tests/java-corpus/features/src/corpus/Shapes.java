package corpus;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

interface Shape extends Comparable<Shape> {
    double area();

    default String label() {
        int _rv$o = 1;
        return getClass().getSimpleName() + "(" + String.format("%.2f", area()) + ")" + _rv$o;
    }

    static Shape biggest(List<? extends Shape> all) {
        Shape best = null;
        for (Shape s : all) {
            if (best == null || s.compareTo(best) > 0) {
                best = s;
            }
        }
        return best;
    }

    @Override
    default int compareTo(Shape o) {
        return Double.compare(area(), o.area());
    }
}

abstract class Base implements Shape {
    protected final String name;

    Base(String name) {
        this.name = name;
    }

    public abstract double area();

    @Override
    public String toString() {
        return name + ":" + label();
    }
}

class Circle extends Base {
    private final double r;

    Circle(double r) {
        super("circle");
        this.r = r;
    }

    public double area() {
        return Math.PI * r * r;
    }
}

class Rect extends Base {
    final double w, h;

    Rect(double w, double h) {
        super("rect");
        this.w = w;
        this.h = h;
    }

    Rect(double side) {
        this(side, side);
    }

    public double area() {
        return w * h;
    }
}

class Box<T extends Comparable<? super T>> {
    private final List<T> items = new ArrayList<>();

    @SafeVarargs
    final Box<T> add(T... ts) {
        for (T t : ts) {
            items.add(t);
        }
        return this;
    }

    <R extends T> T max(Comparator<? super T> cmp) {
        T best = items.get(0);
        for (T t : items) {
            if (cmp.compare(t, best) > 0) {
                best = t;
            }
        }
        return best;
    }

    static <U extends Number> double sum(List<U> xs) {
        double s = 0;
        for (U x : xs) {
            s += x.doubleValue();
        }
        return s;
    }
}

public class Shapes {
    static String run() {
        List<Shape> all = new ArrayList<>();
        all.add(new Circle(1));
        all.add(new Rect(2, 3));
        all.add(new Rect(1.5));
        Box<String> b = new Box<String>().add("pear", "apple", "zucchini");
        return Shape.biggest(all) + " " + all.get(2) + " " + b.max(Comparator.naturalOrder())
                + " " + Box.sum(List.of(1, 2.5, 3L));
    }
}
