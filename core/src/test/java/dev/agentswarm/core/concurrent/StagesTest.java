package dev.agentswarm.core.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import scala.concurrent.Promise;
import scala.jdk.javaapi.FutureConverters;

class StagesTest {

    /** What Pekko's Java API returns: a Scala future seen as a CompletionStage. */
    private static <T> CompletionStage<T> pekkoStyle(Promise<T> promise) {
        return FutureConverters.asJava(promise.future());
    }

    @Test
    void aScalaStagesCallbacksRunWhereItCompletesNotOnAThreadOfTheirOwn() throws Exception {
        Promise<String> promise = Promise.apply();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CompletableFuture<String> direct = Stages.direct(pekkoStyle(promise));
        CompletableFuture<String> seen = direct.whenComplete((v, e) -> ranOn.set(Thread.currentThread()));
        Thread completer = new Thread(() -> promise.success("answer"), "completer");
        completer.start();
        completer.join();
        assertEquals("answer", seen.get(5, TimeUnit.SECONDS));
        assertSame(completer, ranOn.get());
        assertSame(CompletableFuture.class, direct.getClass());
    }

    @Test
    void aFailureComesThroughAsItsCause() {
        Promise<String> promise = Promise.apply();
        CompletableFuture<String> direct = Stages.direct(pekkoStyle(promise));
        promise.failure(new IllegalStateException("no answer"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> direct.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
        assertEquals("no answer", e.getCause().getMessage());
    }

    @Test
    void aPlainFutureIsReturnedAsItIs() {
        CompletableFuture<String> plain = new CompletableFuture<>();
        assertSame(plain, Stages.direct(plain));
    }

    @Test
    void anAlreadyCompletedStageIsDoneAtOnce() {
        assertEquals("now", Stages.direct(CompletableFuture.completedStage("now")).getNow(null));
    }

    @Test
    void cancellingTheResultCancelsTheFutureBehindIt() {
        CompletableFuture<String> behind = new CompletableFuture<>() {}; // a subclass, as libraries hand out
        CompletableFuture<String> direct = Stages.direct(behind);
        direct.cancel(true);
        assertTrue(behind.isCancelled());
        assertThrows(CancellationException.class, behind::join);
    }
}
