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
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x45d9f3b;
        h ^= h >>> 16;
        return Math.floorMod(h, 10) == 0 ? HELDOUT : TRAIN;
    }

    public static Split parse(String name) {
        for (Split s : values()) if (s.label().equalsIgnoreCase(name.trim())) return s;
        throw new IllegalArgumentException("unknown split \"" + name + "\"; use train or heldout");
    }
}
