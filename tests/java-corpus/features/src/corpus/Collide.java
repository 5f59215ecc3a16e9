package corpus;

public class Collide {
    private int _rvOID = 1;
    private int _size = 2;
    private int _vset = 3;
    private long _rv$oid = 4;

    Collide(int extra) {
        _vset += extra;
    }

    int sum() {
        long _rv$o = 1;
        return (int) (_rvOID + _size + _vset + _rv$oid + _rv$o) + new Inner().outer();
    }

    /** An inner class reading its outer class's `_rv$oid`: its own ID field must not hide it. */
    class Inner {
        int outer() {
            return (int) _rv$oid * 10;
        }
    }
}
