package dev.agentswarm.app.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Readiness is the conjunction of the start's steps, the live conditions and not shutting down; each failing one is named. */
class NodeReadinessTest {

    @Test
    void readyOnlyWhenEveryStepIsDoneEveryConditionHoldsAndNoShutdownBegan() {
        NodeReadiness r = new NodeReadiness();
        AtomicReference<String> membership = new AtomicReference<>("joining the cluster (status Joining)");
        r.expect("start", "the node is starting");
        r.require("cluster", membership::get);
        NodeReadiness.Status s = r.status();
        assertFalse(s.ready());
        assertEquals(Map.of("start", "the node is starting", "cluster", "joining the cluster (status Joining)"), s.waiting());

        membership.set(null);
        assertEquals(List.of("start"), List.copyOf(r.status().waiting().keySet()));
        r.done("start");
        assertTrue(r.status().ready());
        assertEquals(List.of("start", "cluster"), r.status().checks());

        membership.set("leaving the cluster (status Leaving)");
        assertEquals(Map.of("cluster", "leaving the cluster (status Leaving)"), r.status().waiting());
        membership.set(null);
        r.stopping("the node is shutting down");
        r.stopping("a second reason is not kept");
        assertEquals(Map.of("shutdown", "the node is shutting down"), r.status().waiting());
    }

    @Test
    void aConditionThatCannotBeReadDoesNotHold() {
        NodeReadiness r = new NodeReadiness();
        r.require("journal", () -> {
            throw new IllegalStateException("no connection");
        });
        NodeReadiness.Status s = r.status();
        assertFalse(s.ready());
        assertTrue(s.waiting().get("journal").contains("no connection"), s.waiting().toString());
    }
}
