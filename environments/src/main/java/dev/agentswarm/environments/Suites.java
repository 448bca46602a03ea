package dev.agentswarm.environments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.ForwardingTaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/** The suites a node offers, by name: the node's {@link TaskEnvironments} and the source of their tools. */
public final class Suites implements TaskEnvironments {

    private final Map<String, Suite> byName = new LinkedHashMap<>();
    /** Which suite each open episode belongs to, so a tool name several suites share reaches the right one. */
    private final Map<String, Suite> episodes = new ConcurrentHashMap<>();

    public Suites(Collection<? extends Suite> suites) {
        for (Suite s : suites) {
            if (byName.put(s.name(), s) != null) throw new IllegalArgumentException("two suites are named '" + s.name() + "'");
        }
    }

    /** The suite of this name, or an error listing the known ones. */
    public Suite get(String name) {
        Suite s = byName.get(name);
        if (s == null) throw new IllegalArgumentException("unknown suite \"" + name + "\"; known suites: " + byName.keySet());
        return s;
    }

    public Collection<Suite> all() {
        return byName.values();
    }

    /**
     * Every suite's tools, each name once. Suites may share a name (multihop and musique both offer
     * {@code search}) if they share its schema: the node offers one tool that calls the implementation
     * of the suite the calling episode belongs to.
     */
    public List<Tool> tools() {
        Map<String, Map<Suite, Tool>> byTool = new LinkedHashMap<>();
        for (Suite s : byName.values()) {
            for (Tool t : s.tools()) byTool.computeIfAbsent(t.name(), k -> new LinkedHashMap<>()).put(s, t);
        }
        List<Tool> out = new ArrayList<>();
        for (var entry : byTool.entrySet()) {
            Map<Suite, Tool> impls = entry.getValue();
            Tool first = impls.values().iterator().next();
            for (var other : impls.entrySet()) {
                if (!other.getValue().spec().equals(first.spec())) {
                    throw new IllegalArgumentException("suites " + impls.keySet().stream().map(Suite::name).toList()
                            + " offer tool '" + entry.getKey() + "' with different schemas; rename one");
                }
            }
            out.add(impls.size() == 1 ? first : new Routed(first.spec(), impls));
        }
        return out;
    }

    @Override
    public Optional<TaskEnvironment> open(Task task, String episodeId) {
        String name = task.suite();
        if (name == null) return Optional.empty();
        Suite suite = get(name);
        TaskEnvironment env = suite.open(task, episodeId);
        episodes.put(episodeId, suite);
        return Optional.of(new ForwardingTaskEnvironment(env) {
            @Override
            public void close() {
                episodes.remove(episodeId);
                super.close();
            }
        });
    }

    /** One tool name shared by several suites: the calling episode's suite answers. */
    private final class Routed implements Tool {
        private final ToolSpec spec;
        private final Map<Suite, Tool> impls;

        Routed(ToolSpec spec, Map<Suite, Tool> impls) {
            this.spec = spec;
            this.impls = impls;
        }

        @Override
        public ToolSpec spec() {
            return spec;
        }

        @Override
        public void release(String episodeId) {
            for (Tool t : impls.values()) t.release(episodeId);
        }

        /** Whichever suite answers: its arguments go unchecked only when each would take them so. */
        @Override
        public boolean checksOwnArguments() {
            for (Tool t : impls.values()) if (!t.checksOwnArguments()) return false;
            return true;
        }

        /** Whichever suite answers: idempotent only when each would be (the caller's suite is not known here). */
        @Override
        public boolean idempotent(JsonNode arguments) {
            for (Tool t : impls.values()) if (!t.idempotent(arguments)) return false;
            return true;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            Suite suite = episodes.get(context.episodeId());
            Tool tool = suite == null ? null : impls.get(suite);
            if (tool == null) {
                return CompletableFuture.failedFuture(new IllegalStateException("tool '" + spec.name()
                        + "' serves episodes of the suites " + impls.keySet().stream().map(Suite::name).toList()
                        + "; episode " + context.episodeId() + " has none open"));
            }
            return tool.invoke(arguments, context);
        }
    }
}
