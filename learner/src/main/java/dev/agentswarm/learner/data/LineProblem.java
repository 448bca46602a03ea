package dev.agentswarm.learner.data;

/** A line of a data file that was not used: {@code file:line} and why. */
public record LineProblem(String where, String reason) {
    @Override
    public String toString() {
        return where + ": " + reason;
    }
}
