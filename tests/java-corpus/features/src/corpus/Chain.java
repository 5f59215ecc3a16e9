package corpus;

import java.io.Serializable;
import java.lang.reflect.Field;

class Chain {
    private final int a;
    private final int b;

    Chain() {
        this(1);
    }

    Chain(int a) {
        this(a, a * 2);
    }

    Chain(int a, int b) {
        this.a = a;
        this.b = b;
    }

    int total() {
        return a + b;
    }
}

class Sub extends Chain {
    private final String what;

    Sub(int a) {
        super(a);
        what = "sub";
    }

    String describe() {
        return what + total();
    }
}

class Sub2 extends Sub {
    Sub2() {
        super(7);
    }

    @Override
    String describe() {
        return "sub2/" + super.describe();
    }
}

class Ser implements Serializable {
    int x;
    String y;

    int getX() {
        return x;
    }

    static int fieldCount() {
        int n = 0;
        for (Field f : Ser.class.getDeclaredFields()) {
            if (!f.getName().startsWith("_rv$")) {
                n++;
            }
        }
        return n;
    }
}
