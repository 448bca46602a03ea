package dev.agentswarm.policy.model;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The engine's per-thread state, and what to do about it.
 *
 * <p>Autograd bookkeeping is per thread in libtorch and on by default on every thread but the one that
 * loaded the engine: an inference pass on an actor's thread would record a graph for nothing. Call
 * {@link #noGradHere()} at the start of inference work on any thread (it is cheap); a learner's
 * GradientCollector turns recording on for its own scope and restores the previous mode.
 *
 * <p>libtorch's CPU ops run on OpenMP (libgomp), which gives every thread that ever ran a parallel op
 * a team of worker threads, kept until that thread ends. Between ops a team's workers spin briefly,
 * but only while the workers of all teams in the process do not outnumber the cores; past that they
 * sleep after a few spins and every op pays a wake-up through the kernel. One-off work on the main
 * thread (loading a model, a checksum) would leave such a team behind for good: on 2 cores it cut the
 * policy server's batch-32 decode from ~6,900 to ~4,000 tokens/s. {@link #onOwnThread} runs that work
 * on a thread that ends when it is done, taking its team with it.
 */
public final class InferenceThreads {

    private InferenceThreads() {}

    public static void noGradHere() {
        Engine.getEngine("PyTorch"); // loads the natives before the first JNI call
        JniUtils.setGradMode(false);
    }

    /**
     * Runs one-off engine work (loading or creating a model) on a new thread, waits for it and returns
     * its result or rethrows its failure; the thread's OpenMP team ends with it. Arrays made there
     * belong to their managers, not to the thread, and serve any thread afterwards.
     */
    public static <T> T onOwnThread(String name, Supplier<T> work) {
        Engine.getEngine("PyTorch"); // loaded here first, so the caller keeps the loading thread's mode (no grad)
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                result.set(work.get());
            } catch (Throwable t) {
                failure.set(t);
            }
        }, name);
        worker.setDaemon(true);
        worker.start();
        boolean interrupted = false;
        while (true) {
            try {
                worker.join(); // uninterruptibly: the work may hold native memory that only its result can free
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) throw r;
        if (t instanceof Error e) throw e;
        if (t != null) throw new IllegalStateException(name + " failed: " + t, t);
        return result.get();
    }

    public static boolean recordsGradients() {
        Engine.getEngine("PyTorch");
        return JniUtils.isGradMode();
    }
}
