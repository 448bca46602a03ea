package dev.agentswarm.learner.data;

/** Where the next micro-batch starts: position {@code index} of epoch {@code epoch}'s shuffled order. */
public record DataCursor(int epoch, int index) {
    public static final DataCursor START = new DataCursor(0, 0);

    public DataCursor {
        if (epoch < 0 || index < 0) throw new IllegalArgumentException("cursor (" + epoch + ", " + index + ") is negative");
    }
}
