package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PermitsTest {

    @Test
    void waitersAreServedInOrderAndNumbersAreNeverShared() {
        Permits p = new Permits(2);
        int a = p.acquire().toCompletableFuture().join();
        int b = p.acquire().toCompletableFuture().join();
        assertEquals(Set.of(0, 1), new HashSet<>(java.util.List.of(a, b)));
        CompletableFuture<Integer> first = p.acquire().toCompletableFuture();
        CompletableFuture<Integer> second = p.acquire().toCompletableFuture();
        assertFalse(first.isDone() || second.isDone());
        assertTrue(p.tryAcquire().isEmpty(), "no jumping the queue");
        p.release(b);
        assertEquals(b, first.join());
        assertFalse(second.isDone());
        p.release(a);
        assertEquals(a, second.join());
        assertEquals(0, p.available());
    }

    @Test
    void aCancelledWaiterIsSkipped() {
        Permits p = new Permits(1);
        int only = p.acquire().toCompletableFuture().join();
        CompletableFuture<Integer> gaveUp = p.acquire().toCompletableFuture();
        CompletableFuture<Integer> next = p.acquire().toCompletableFuture();
        gaveUp.cancel(false);
        p.release(only);
        assertEquals(only, next.join());
        assertEquals(0, p.waiters());
        p.release(next.join());
        assertEquals(1, p.available());
        assertEquals(0, p.tryAcquire().getAsInt());
    }
}
