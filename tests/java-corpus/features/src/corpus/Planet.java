package corpus;

public enum Planet {
    MERCURY(3.303e+23, 2.4397e6),
    EARTH(5.976e+24, 6.37814e6) {
        @Override
        String greet() {
            return "home";
        }
    },
    JUPITER(1.9e+27, 7.1492e7),;

    private final double mass;
    private final double radius;

    Planet(double mass, double radius) {
        this.mass = mass;
        this.radius = radius;
    }

    String greet() {
        return "far";
    }

    double gravity() {
        return 6.67300E-11 * mass / (radius * radius);
    }

    static String describe() {
        StringBuilder sb = new StringBuilder();
        for (Planet p : values()) {
            sb.append(p).append('=').append(String.format("%.2f", p.gravity())).append(p.greet()).append(' ');
        }
        return sb.toString().trim() + " " + Op.PLUS.apply(2, 3) + Op.TIMES.apply(2, 3) + Color.valueOf("RED");
    }
}

enum Op {
    PLUS {
        int apply(int a, int b) {
            return a + b;
        }
    },
    TIMES {
        int apply(int a, int b) {
            return a * b;
        }
    };

    abstract int apply(int a, int b);
}

enum Color { RED, GREEN }
