package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.List;

/**
 * One node of an orchestrator's plan: an id, the goal a sub-agent pursues, its mode
 * ({@code search}, {@code coding}, {@code general}), the tools it may use and the ids of the
 * sub-tasks whose answers it needs first.
 */
public record SubTask(String id, String goal, String mode, List<String> tools, List<String> dependsOn)
        implements CborSerializable {

    public SubTask {
        tools = tools == null ? List.of() : List.copyOf(tools);
        dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
        mode = mode == null ? "general" : mode;
    }
}
