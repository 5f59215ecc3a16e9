package channels;

import advice.ActiveObject;

/** ../seq's Scorer made active: score (void) is posted to the Scorer's own thread. */
public final class Scorer {
    private final ActiveObject self = new ActiveObject("scorer");
    private final Model model = new Model();
    private final Channel out;

    public Scorer(Channel out) {
        this.out = out;
    }

    public void score(Record r) {
        self.post(() -> {
            try {
                out.put((long) model.dot(r.values));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
