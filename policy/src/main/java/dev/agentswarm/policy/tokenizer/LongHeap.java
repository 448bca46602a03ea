package dev.agentswarm.policy.tokenizer;

import java.util.Arrays;

/** A binary min-heap of primitive longs; keys pack (priority, tie-break) so no objects are made. */
final class LongHeap {

    private long[] heap;
    private int size;

    LongHeap(int capacity) {
        heap = new long[Math.max(4, capacity)];
    }

    boolean isEmpty() {
        return size == 0;
    }

    void push(long v) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= v) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = v;
    }

    long pop() {
        long top = heap[0];
        long last = heap[--size];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (last <= heap[child]) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        return top;
    }
}
