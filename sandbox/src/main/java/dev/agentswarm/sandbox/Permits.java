package dev.agentswarm.sandbox;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A fixed set of numbered permits handed out without blocking a thread: {@link #acquire} completes
 * at once with a free number, or later, in arrival order, when one is released. The numbers pick a
 * sandbox's uid, so two holders never share one. Backpressure for callers: they wait, never fail.
 */
final class Permits {

    private final Deque<Integer> free = new ArrayDeque<>();
    private final Deque<CompletableFuture<Integer>> waiting = new ArrayDeque<>();

    Permits(int count) {
        if (count < 1) throw new IllegalArgumentException("at least one permit, got " + count);
        for (int i = 0; i < count; i++) free.add(i);
    }

    /** A permit number, now or once one is released. */
    CompletionStage<Integer> acquire() {
        synchronized (this) {
            Integer n = free.poll();
            if (n != null) return CompletableFuture.completedFuture(n);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            waiting.add(f);
            return f;
        }
    }

    /** A permit number if one is free and nobody waits for it; never queues. */
    synchronized OptionalInt tryAcquire() {
        Integer n = waiting.isEmpty() ? free.poll() : null;
        return n == null ? OptionalInt.empty() : OptionalInt.of(n);
    }

    /** Gives {@code n} back: to the longest waiter still waiting, else to the free set. */
    void release(int n) {
        while (true) {
            CompletableFuture<Integer> next;
            synchronized (this) {
                next = waiting.poll();
                if (next == null) {
                    free.add(n);
                    return;
                }
            }
            // Completed outside the lock: the waiter's continuation may run here. A waiter cancelled meanwhile is skipped.
            if (next.complete(n)) return;
        }
    }

    synchronized int available() {
        return free.size();
    }

    synchronized int waiters() {
        return waiting.size();
    }
}
