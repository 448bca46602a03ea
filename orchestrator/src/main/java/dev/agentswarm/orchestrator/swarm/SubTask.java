package dev.agentswarm.orchestrator.swarm;

import java.util.List;

/** One node of a plan: a sub-agent's goal, its mode and tools, and the sub-tasks whose answers it needs. */
public record SubTask(String id, String goal, SubAgentMode mode, List<String> tools, List<String> dependsOn) {
    public SubTask {
        tools = List.copyOf(tools);
        dependsOn = List.copyOf(dependsOn);
    }
}
