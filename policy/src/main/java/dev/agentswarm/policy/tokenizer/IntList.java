package dev.agentswarm.policy.tokenizer;

import java.util.Arrays;

/** A growable int array, so encoding never boxes ids. */
final class IntList {

    private int[] data;
    private int size;

    IntList(int capacity) {
        data = new int[Math.max(1, capacity)];
    }

    void add(int v) {
        if (size == data.length) {
            data = Arrays.copyOf(data, size * 2);
        }
        data[size++] = v;
    }

    void addAll(int[] vs) {
        if (size + vs.length > data.length) {
            data = Arrays.copyOf(data, Math.max(size * 2, size + vs.length));
        }
        System.arraycopy(vs, 0, data, size, vs.length);
        size += vs.length;
    }

    int size() {
        return size;
    }

    int[] toArray() {
        return Arrays.copyOf(data, size);
    }
}
