package corpus;

record Point(int x, int y) {
    Point {
        if (x < 0) {
            throw new IllegalArgumentException("negative x");
        }
    }

    Point(int both) {
        this(both, both);
    }

    int dist() {
        return Math.abs(x) + Math.abs(y);
    }

    static Point origin() {
        return new Point(0, 0);
    }
}

public class Records {
    static String run() {
        Point p = new Point(3, 4);
        String bad;
        try {
            new Point(-1, 0);
            bad = "accepted";
        } catch (IllegalArgumentException e) {
            bad = e.getMessage();
        }
        return p + " " + p.dist() + " " + new Point(2).dist() + " " + Point.origin().equals(new Point(0, 0)) + " " + bad;
    }
}
