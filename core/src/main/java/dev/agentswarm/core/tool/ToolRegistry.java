package dev.agentswarm.core.tool;

import dev.agentswarm.core.protocol.ToolSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The tools a node offers, by name. Episodes pick theirs from it by the names in their spec. */
public final class ToolRegistry {

    private final Map<String, Tool> tools;

    private ToolRegistry(Map<String, Tool> tools) {
        this.tools = tools;
    }

    public static ToolRegistry of(Tool... tools) {
        return of(List.of(tools));
    }

    public static ToolRegistry of(Collection<? extends Tool> tools) {
        Map<String, Tool> m = new LinkedHashMap<>();
        for (Tool t : tools) {
            if (m.put(t.name(), t) != null) {
                throw new IllegalArgumentException("two tools are named '" + t.name() + "'");
            }
        }
        // Insertion order is kept: it is the order tools are listed in the prompt, which must not vary between runs.
        return new ToolRegistry(java.util.Collections.unmodifiableMap(m));
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    public Collection<String> names() {
        return tools.keySet();
    }

    /** A registry with the named tools only, failing with the list of known names if one is missing. */
    public ToolRegistry select(List<String> names) {
        Map<String, Tool> m = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String n : names) {
            Tool t = tools.get(n);
            if (t == null) missing.add(n);
            else m.put(n, t);
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("unknown tool(s) " + missing + "; this node offers " + tools.keySet().stream().sorted().toList());
        }
        return new ToolRegistry(java.util.Collections.unmodifiableMap(m));
    }

    /** Tells every tool that {@code episodeId} ended ({@link Tool#release}); one tool failing does not stop the others. */
    public void release(String episodeId) {
        for (Tool t : tools.values()) {
            try {
                t.release(episodeId);
            } catch (RuntimeException e) {
                java.util.logging.Logger.getLogger(ToolRegistry.class.getName())
                        .warning("tool " + t.name() + " failed to release episode " + episodeId + ": " + e);
            }
        }
    }

    public List<ToolSpec> specs() {
        return tools.values().stream().map(Tool::spec).toList();
    }

    /**
     * This registry with each tool's idempotency as configured: {@code tools} is the
     * {@code agentswarm.tools} block, whose {@code NAME.idempotent = true|false} overrides what tool NAME
     * declares ({@link Tool#idempotent}) for every call. A name this registry lacks, or a value that is
     * not a boolean, is refused naming the key.
     */
    public ToolRegistry withIdempotency(com.typesafe.config.Config tools) {
        Map<String, Tool> m = new LinkedHashMap<>(this.tools);
        for (String name : tools.root().keySet()) {
            String key = com.typesafe.config.ConfigUtil.joinPath("agentswarm", "tools", name);
            com.typesafe.config.ConfigValue block = tools.root().get(name);
            if (!(block instanceof com.typesafe.config.ConfigObject o)) {
                throw new IllegalArgumentException(key + " must be a block such as { idempotent = false }");
            }
            Tool t = m.get(name);
            if (t == null) {
                throw new IllegalArgumentException(key + " names no tool of this node; it offers " + names().stream().sorted().toList());
            }
            for (String field : o.keySet()) {
                if (!field.equals("idempotent")) throw new IllegalArgumentException(key + "." + field + " is unknown (known: idempotent)");
            }
            if (!o.containsKey("idempotent")) continue;
            Object v = o.get("idempotent").unwrapped();
            if (!(v instanceof Boolean b)) {
                throw new IllegalArgumentException(key + ".idempotent must be true or false, got " + o.get("idempotent").render());
            }
            m.put(name, declared(t, b));
        }
        return new ToolRegistry(java.util.Collections.unmodifiableMap(m));
    }

    /** {@code tool}, with every call declared idempotent or not regardless of what it says itself. */
    static Tool declared(Tool tool, boolean idempotent) {
        return new ForwardingTool(tool) {
            @Override
            public boolean idempotent(com.fasterxml.jackson.databind.JsonNode arguments) {
                return idempotent;
            }
        };
    }

    public ToolRegistry plus(Tool t) {
        Map<String, Tool> m = new LinkedHashMap<>(tools);
        m.put(t.name(), t);
        return new ToolRegistry(java.util.Collections.unmodifiableMap(m));
    }
}
