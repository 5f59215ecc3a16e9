package channels;

/** Scores a record with its own model and hands the score on to the sink's channel. */
public final class Scorer {
    private final Model model = new Model();
    private final Channel out;

    public Scorer(Channel out) {
        this.out = out;
    }

    public void score(Record r) throws InterruptedException {
        out.put((long) model.dot(r.values));
    }
}
