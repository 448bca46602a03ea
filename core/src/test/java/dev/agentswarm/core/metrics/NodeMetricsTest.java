package dev.agentswarm.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.typesafe.config.ConfigFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/** One registry per actor system: it counts with nothing exposing it, tags every meter with the node, and keeps nodes apart. */
class NodeMetricsTest {

    private static ActorSystem<Void> system(String name, String roles) {
        return ActorSystem.create(Behaviors.empty(), name, ConfigFactory.parseString(roles == null ? "" : "pekko.cluster.roles = " + roles)
                .withFallback(ConfigFactory.load()));
    }

    @Test
    void eachSystemHasItsOwnRegistryThatCountsAndTagsItsNode() throws Exception {
        ActorSystem<Void> a = system("node-a", "[worker, orchestrator]");
        ActorSystem<Void> b = system("node-b", null);
        try {
            NodeMetrics ma = NodeMetrics.get(a);
            assertSame(ma, NodeMetrics.get(a), "one per system");
            MeterRegistry ra = ma.registry();
            MeterRegistry rb = NodeMetrics.get(b).registry();
            assertNotSame(ra, rb);
            Counter ca = Counter.builder("agentswarm.test.events").register(ra);
            ca.increment(3);
            Counter.builder("agentswarm.test.events").register(rb).increment();
            assertEquals(3, ra.get("agentswarm.test.events").counter().count(), "counts with no exposition added");
            assertEquals(1, rb.get("agentswarm.test.events").counter().count());
            assertEquals(a.address().toString(), ca.getId().getTag("node"));
            assertEquals("orchestrator,worker", ca.getId().getTag("roles"));
            assertEquals("none", rb.get("agentswarm.test.events").counter().getId().getTag("roles"));
            assertEquals(0, Metrics.globalRegistry.getMeters().size(), "nothing on Micrometer's global registry");
        } finally {
            a.terminate();
            b.terminate();
            a.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
            b.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMeterSetIsMadeOncePerNode() throws Exception {
        ActorSystem<Void> a = system("node-c", null);
        try {
            NodeMetrics m = NodeMetrics.get(a);
            int[] made = {0};
            record Set(Counter c) {}
            Set first = m.meters(Set.class, r -> {
                made[0]++;
                return new Set(Counter.builder("agentswarm.test.set").register(r));
            });
            assertSame(first, m.meters(Set.class, r -> new Set(null)));
            assertEquals(1, made[0]);
        } finally {
            a.terminate();
            a.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
