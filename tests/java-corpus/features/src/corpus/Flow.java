package corpus;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;

public class Flow {
    static final List<String> LOG = new ArrayList<>();
    private final int[][] grid;
    private final String tag;
    private int inits;

    {
        inits++;
    }

    Flow(int n) {
        int[][] g = new int[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                g[i][j] = i * j;
            }
        }
        grid = g;
        if (n > 2) {
            tag = "big";
            return;
        }
        tag = "small";
    }

    static class Res implements Closeable {
        final String name;

        Res(String name) {
            this.name = name;
            LOG.add("open " + name);
        }

        @Override
        public void close() {
            LOG.add("close " + name);
        }
    }

    static int tryFinally(int x) {
        try {
            if (x > 1) {
                return x * 10;
            }
            throw new IllegalStateException("small " + x);
        } catch (IllegalStateException e) {
            LOG.add(e.getMessage());
            return -1;
        } finally {
            LOG.add("finally " + x);
        }
    }

    static int deep(int n) {
        if (n == 0) {
            throw new ArithmeticException("bottom");
        }
        return deep(n - 1) + 1;
    }

    static int catcher() {
        try {
            return deep(5);
        } catch (ArithmeticException e) {
            return e.getStackTrace().length > 0 ? 42 : 0;
        }
    }

    static int labeled() {
        int found = 0;
        outer:
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 5; j++) {
                if (j == 3) {
                    continue outer;
                }
                if (i == 4) {
                    break outer;
                }
                found += j;
            }
        }
        return found;
    }

    static int varargs(String fmt, int... xs) {
        int s = 0;
        for (int x : xs) {
            s += x;
        }
        return s + fmt.length();
    }

    static int forever(int limit) {
        int i = 0;
        while (true) {
            if (++i >= limit) {
                return i;
            }
        }
    }

    static void nothing() {
    }

    static String label(int i) {
        return i % 2 == 0 ? "even" + i : "odd" + i;
    }

    int cell(int i, int j) {
        return grid[i][j];
    }

    static String run() {
        String r;
        try (Res a = new Res("a"); Res b = new Res("b")) {
            r = a.name + b.name;
        }
        nothing();
        Flow f = new Flow(3);
        Flow g = new Flow(1);
        return r + " " + tryFinally(5) + tryFinally(0) + " " + catcher() + " " + labeled() + " "
                + varargs("ab", 1, 2, 3) + varargs("") + " " + forever(7) + " " + f.cell(2, 2) + f.tag
                + g.tag + f.inits + " " + LOG;
    }
}
