package dev.agentswarm.learner.rl;

/** A prompt's ids and two completions of it, the chosen one preferred to the rejected one. */
public record PreferencePair(int[] prompt, int[] chosen, int[] rejected) {

    public PreferencePair {
        if (prompt.length == 0) throw new IllegalArgumentException("a preference pair needs a prompt");
        if (chosen.length == 0 || rejected.length == 0) throw new IllegalArgumentException("a preference pair needs two non-empty completions");
    }
}
