package dev.agentswarm.core.concurrent;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Completion stages from libraries, made safe to chain on.
 *
 * <p>Pekko's Java API (an ask's answer, a stream's completion, {@code getWhenTerminated}) hands out Scala's
 * {@code CompletableFuture} subclass, whose plain {@code whenComplete}, {@code handle} and {@code thenApply}
 * run their callback asynchronously on the default executor; and where the common pool has a single
 * thread (a machine with two cores, as CI has), that executor starts a new thread for every callback.
 * {@code pipeToSelf} chains with {@code handle}, so every ask piped to an actor paid for a thread. A stage
 * passed through {@link #direct} instead runs its callbacks on the thread that completes it.
 */
public final class Stages {

    private Stages() {}

    /**
     * {@code stage} as a plain {@link CompletableFuture} that completes as it does, on the thread that
     * completes it; {@code stage} itself when it is one already. Cancelling the result cancels {@code stage}
     * where that is a future.
     */
    public static <T> CompletableFuture<T> direct(CompletionStage<T> stage) {
        if (stage.getClass() == CompletableFuture.class) return (CompletableFuture<T>) stage;
        CompletableFuture<T> out = new CompletableFuture<>();
        // The variant with an executor is not redirected by the subclass: Runnable::run runs the callback in place.
        stage.whenCompleteAsync((value, failure) -> {
            if (failure != null) out.completeExceptionally(failure);
            else out.complete(value);
        }, Runnable::run);
        if (stage instanceof CompletableFuture<T> future) {
            out.whenComplete((value, failure) -> {
                if (failure instanceof CancellationException) future.cancel(true);
            });
        }
        return out;
    }
}
