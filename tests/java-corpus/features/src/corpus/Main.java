package corpus;

import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.List;

/** Runs every feature and prints what it computed; ends with System.exit(3). */
public class Main {
    static int counter;

    static {
        counter = 10;
    }

    public static void main(String[] args) throws Exception {
        System.out.println("shapes " + Shapes.run());
        System.out.println("enums " + Planet.describe());
        System.out.println("records " + Records.run());
        System.out.println("modern " + Modern.run(new Object[] {1, "two", 3.0, List.of(4)}));
        System.out.println("flow " + Flow.run());
        System.out.println("threads " + Threads.run(4, 2000));
        System.out.println("unicode " + new Ünïcödé("naïve").größe());
        System.out.println("collide " + new Collide(5).sum());
        System.out.println("chain " + new Chain().total() + " " + new Chain(2).total());
        System.out.println("sub " + new Sub(3).describe() + " " + new Sub2().describe());
        System.out.println("serial " + ObjectStreamClass.lookup(Ser.class).getSerialVersionUID());
        System.out.println("fields " + Ser.fieldCount());
        System.out.println("copies " + Copies.run());
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(Flow.label(i));
        }
        System.out.println("labels " + out + " " + counter);
        System.out.flush();
        System.exit(3);
    }
}
