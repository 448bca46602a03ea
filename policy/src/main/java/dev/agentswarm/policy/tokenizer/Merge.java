package dev.agentswarm.policy.tokenizer;

/** One learned merge: the adjacent tokens {@code left} and {@code right} become a new token. */
public record Merge(int left, int right) {

    /** Both ids packed in one long, the key of the rank tables (no boxing of a pair object). */
    long key() {
        return pairKey(left, right);
    }

    static long pairKey(int left, int right) {
        return ((long) left << 32) | (right & 0xffffffffL);
    }
}
