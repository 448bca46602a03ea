package dev.agentswarm.policy.tokenizer;

/**
 * Pair key to merge rank, open addressing over primitive arrays: the encoder looks a pair up for
 * every candidate, and boxed {@code Long}/{@code Integer} keys would dominate its cost.
 */
final class PairRanks {

    private static final long EMPTY = -1L;

    private final long[] keys;
    private final int[] ranks;
    private final int mask;

    PairRanks(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 + 1) - 1) << 1;
        keys = new long[capacity];
        ranks = new int[capacity];
        mask = capacity - 1;
        java.util.Arrays.fill(keys, EMPTY);
    }

    /** Stores the rank unless the key is present; returns the existing rank, or -1 when stored. */
    int putIfAbsent(long key, int rank) {
        int i = slot(key);
        while (keys[i] != EMPTY) {
            if (keys[i] == key) {
                return ranks[i];
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        ranks[i] = rank;
        return -1;
    }

    int get(long key) {
        int i = slot(key);
        while (keys[i] != EMPTY) {
            if (keys[i] == key) {
                return ranks[i];
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 40) & mask;
    }
}
