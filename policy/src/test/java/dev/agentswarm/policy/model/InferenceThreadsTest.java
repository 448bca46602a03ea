package dev.agentswarm.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class InferenceThreadsTest {

    @Test
    void oneOffWorkRunsOnAThreadThatHasEndedWhenItReturns() {
        AtomicReference<Thread> ran = new AtomicReference<>();
        try (NDManager manager = NDManager.newBaseManager()) {
            NDArray made = InferenceThreads.onOwnThread("loader", () -> {
                ran.set(Thread.currentThread());
                return manager.arange(4f).matMul(manager.arange(4f));
            });
            assertNotSame(Thread.currentThread(), ran.get());
            assertEquals("loader", ran.get().getName());
            assertFalse(ran.get().isAlive(), "the thread, and its OpenMP team, are gone");
            assertEquals(14f, made.getFloat(), "what it made serves the caller's thread");
        }
    }

    @Test
    void failuresReachTheCallerAsThrown() {
        IllegalArgumentException thrown = new IllegalArgumentException("no folder at /nowhere");
        assertSame(thrown, assertThrows(IllegalArgumentException.class,
                () -> InferenceThreads.onOwnThread("loader", () -> { throw thrown; })));
        assertThrows(OutOfMemoryError.class,
                () -> InferenceThreads.onOwnThread("loader", () -> { throw new OutOfMemoryError("native"); }));
    }

    @Test
    void theCallerKeepsItsInterruptAndStillGetsTheResult() {
        Thread.currentThread().interrupt();
        try {
            assertEquals(42, InferenceThreads.onOwnThread("loader", () -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return 42;
            }));
            assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
    }
}
