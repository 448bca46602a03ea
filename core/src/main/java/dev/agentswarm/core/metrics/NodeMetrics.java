package dev.agentswarm.core.metrics;

import com.typesafe.config.Config;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The meters of one node (one actor system): what its actors record on, and what the node's
 * {@code /metrics} endpoint renders. One registry per actor system, not Micrometer's static global
 * one, so that several nodes in one JVM (tests, benches) keep separate counts.
 *
 * <p>The registry is a composite that always holds a {@link SimpleMeterRegistry}, so meters count
 * even when nothing exposes them (a node without the endpoint, a test); {@code app} adds a
 * Prometheus registry to it when the endpoint is on. Every meter carries the node's identity as
 * common tags: {@code node} (its address) and {@code roles} (its cluster roles, comma-separated).
 *
 * <p>Actors record through {@code NodeMetrics.get(system)}; hot paths hold pre-registered meters in
 * fields, made once per node with {@link #meters}, so recording is an increment, never a lookup.
 */
public final class NodeMetrics implements Extension {

    /** The extension's id: {@code NodeMetrics.get(system)}. */
    public static final ExtensionId<NodeMetrics> ID = new ExtensionId<>() {
        @Override
        public NodeMetrics createExtension(ActorSystem<?> system) {
            return new NodeMetrics(system);
        }
    };

    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final Map<Class<?>, Object> meterSets = new ConcurrentHashMap<>();
    private final String node;

    private NodeMetrics(ActorSystem<?> system) {
        this.node = system.address().toString();
        registry.config().commonTags(Tags.of("node", node, "roles", roles(system.settings().config())));
        registry.add(new SimpleMeterRegistry());
        system.getWhenTerminated().thenRun(registry::close);
    }

    /** The node's metrics, created on first use. */
    public static NodeMetrics get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** The node's registry: record on it, or add a registry (Prometheus) that exposes it. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The same registry as a composite, for adding or removing the registries that expose it. */
    public CompositeMeterRegistry composite() {
        return registry;
    }

    /** The node's address, the {@code node} tag of its meters. */
    public String node() {
        return node;
    }

    /**
     * A set of meters registered once per node and shared by everything of its kind on the node
     * (every episode actor records on one {@code EpisodeMeters}): made by {@code make} on first use.
     */
    public <T> T meters(Class<T> kind, Function<MeterRegistry, T> make) {
        return kind.cast(meterSets.computeIfAbsent(kind, k -> make.apply(registry)));
    }

    /** A cluster member's roles, sorted and comma-separated; {@code none} outside a cluster. */
    static String roles(Config config) {
        if (!config.hasPath("pekko.cluster.roles")) return "none";
        List<String> roles = config.getStringList("pekko.cluster.roles").stream().sorted().toList();
        return roles.isEmpty() ? "none" : String.join(",", roles);
    }
}
