package dev.agentswarm.environments;

import java.util.Locale;

/** Disjoint parts of a suite: what a policy trains on and what it is judged on. */
public enum Split {
    TRAIN,
    HELDOUT;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The split of a generated task, from a hash of what makes it distinct (its expression, its
     * plugins and values): one in ten is held out. Disjoint by construction, whatever the sizes drawn.
     */
    public static Split byHash(String key) {
        return byHash(key, 10);
    }

    /** The same rule holding out one in {@code oneIn} (a small hand-written set needs a bigger share to judge on). */
    public static Split byHash(String key, int oneIn) {
        if (oneIn < 2) throw new IllegalArgumentException("one in " + oneIn + " held out leaves nothing to train on");
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x45d9f3b;
        h ^= h >>> 16;
        return Math.floorMod(h, oneIn) == 0 ? HELDOUT : TRAIN;
    }

    public static Split parse(String name) {
        for (Split s : values()) if (s.label().equalsIgnoreCase(name.trim())) return s;
        throw new IllegalArgumentException("unknown split \"" + name + "\"; use train or heldout");
    }
}
