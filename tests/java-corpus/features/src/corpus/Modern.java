package corpus;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

public class Modern {
    private int base = 100;

    class Inner {
        int plus(int x) {
            return base + x;
        }
    }

    static class Nested {
        static String shout(String s) {
            return s.toUpperCase() + "!";
        }
    }

    static String kind(Object o) {
        int h = o == null ? 0 : o.getClass().getSimpleName().length();
        return switch (h) {
            case 0 -> "null";
            default -> {
                if (o instanceof Integer i && i > 0) {
                    yield "int" + i;
                } else if (o instanceof String s) {
                    yield "str" + s.length();
                }
                yield o.getClass().getSimpleName();
            }
        };
    }

    static int days(String m) {
        int d = switch (m) {
            case "feb":
                yield 28;
            case "apr", "jun":
                yield 30;
            default:
                yield 31;
        };
        return d;
    }

    String local(int n) {
        class Acc {
            int total;

            int add(int x) {
                total += x;
                return total;
            }
        }
        Acc a = new Acc();
        for (int i = 0; i < n; i++) {
            a.add(i);
        }
        return "acc" + a.total;
    }

    static String run(Object[] xs) {
        StringBuilder sb = new StringBuilder();
        for (Object x : xs) {
            sb.append(kind(x)).append(',');
        }
        Function<Integer, Integer> sq = x -> {
            return x * x;
        };
        Supplier<String> anon = new Supplier<String>() {
            @Override
            public String get() {
                return "anon";
            }
        };
        Modern m = new Modern();
        Modern.Inner in = m.new Inner();
        String text = """
            Hello,
              "text" block\tend
            """;
        List<String> words = List.of("a", "bb", "ccc");
        return sb + " " + sq.apply(7) + " " + anon.get() + " " + in.plus(5) + " " + Nested.shout("hi")
                + " " + days("feb") + days("jun") + days("jan") + " " + m.local(5) + " "
                + words.stream().map(String::length).map(String::valueOf).collect(Collectors.joining("+"))
                + " " + text.length() + text.lines().count();
    }
}
