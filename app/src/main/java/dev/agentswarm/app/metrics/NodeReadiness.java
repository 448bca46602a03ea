package dev.agentswarm.app.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * Whether a node is ready to take work, for {@code GET /ready}: every expected step of its start is
 * done, every live condition holds (its cluster membership is Up), and it is not shutting down.
 * What the node waits for is named, so a 503 says why. One per actor system.
 */
public final class NodeReadiness implements Extension {

    public static final ExtensionId<NodeReadiness> ID = new ExtensionId<>() {
        @Override
        public NodeReadiness createExtension(ActorSystem<?> system) {
            NodeReadiness readiness = new NodeReadiness();
            // The first phase of a shutdown, before the node leaves the cluster: orchestrators stop sending it work at once.
            CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "ready-off", () -> {
                readiness.stopping("the node is shutting down");
                return CompletableFuture.completedFuture(Done.getInstance());
            });
            return readiness;
        }
    };

    /** Ready, or the checks that are not, each with what it waits for. */
    public record Status(boolean ready, Map<String, String> waiting, List<String> checks) {}

    /** Steps of the start not done yet, with what they wait for; insertion order. */
    private final Map<String, String> pending = new LinkedHashMap<>();
    /** Every check named so far (steps and conditions), for the ready answer. */
    private final Set<String> checks = new LinkedHashSet<>();
    /** Conditions read on every ask: null when it holds, else why not. */
    private final Map<String, Supplier<String>> conditions = new LinkedHashMap<>();
    private String stopping;

    NodeReadiness() {}

    public static NodeReadiness get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** The node is not ready until {@link #done}{@code (check)}; {@code waitingFor} says what it waits for meanwhile. */
    public synchronized void expect(String check, String waitingFor) {
        pending.put(check, waitingFor);
        checks.add(check);
    }

    public synchronized void done(String check) {
        pending.remove(check);
        checks.add(check);
    }

    /** A condition read on every ask: {@code problem} returns null while it holds, else why the node is not ready. */
    public synchronized void require(String check, Supplier<String> problem) {
        conditions.put(check, problem);
        checks.add(check);
    }

    /** From now on the node is not ready (it leaves the cluster or shuts down), whatever else holds. */
    public synchronized void stopping(String why) {
        if (stopping == null) stopping = why;
    }

    public synchronized Status status() {
        Map<String, String> waiting = new LinkedHashMap<>();
        if (stopping != null) waiting.put("shutdown", stopping);
        waiting.putAll(pending);
        for (Map.Entry<String, Supplier<String>> c : conditions.entrySet()) {
            String problem;
            try {
                problem = c.getValue().get();
            } catch (RuntimeException e) { // a condition that cannot be read does not hold
                problem = "cannot tell: " + e;
            }
            if (problem != null) waiting.putIfAbsent(c.getKey(), problem);
        }
        return new Status(waiting.isEmpty(), Collections.unmodifiableMap(waiting), List.copyOf(checks));
    }
}
