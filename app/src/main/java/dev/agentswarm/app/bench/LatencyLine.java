package dev.agentswarm.app.bench;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Completes futures a fixed latency after they were queued, as a model server would answer,
 * without a thread per request. With one latency for all, deadlines arrive in order, so a FIFO
 * queue and one thread do it: cheaper than a timer heap at tens of thousands of answers per
 * second, which keeps the emulated model from eating the CPU the runtime is measured on.
 */
final class LatencyLine implements AutoCloseable {

    private record Pending<T>(long dueNanos, CompletableFuture<T> future, T value, Runnable before) {
        void complete() {
            before.run();
            future.complete(value);
        }
    }

    private final long latencyNanos;
    private final Queue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    LatencyLine(long latencyNanos) {
        this.latencyNanos = latencyNanos;
        this.thread = new Thread(this::loop, "model-latency");
        thread.setDaemon(true);
        thread.start();
    }

    /** A future completed with {@code value} after the latency; {@code before} runs just before. */
    <T> CompletableFuture<T> later(T value, Runnable before) {
        CompletableFuture<T> f = new CompletableFuture<>();
        queue.add(new Pending<>(System.nanoTime() + latencyNanos, f, value, before));
        return f;
    }

    private void loop() {
        while (running) {
            Pending<?> head = queue.peek();
            if (head == null) {
                LockSupport.parkNanos(200_000);
                continue;
            }
            long wait = head.dueNanos() - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(Math.min(wait, 1_000_000));
                continue;
            }
            queue.poll();
            head.complete();
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
    }
}
