package dev.agentswarm.orchestrator.swarm;

import java.util.List;

/**
 * A checked plan: its sub-tasks in the order given, and its stages, each the sub-tasks whose
 * dependencies all lie in earlier stages, so a stage's sub-tasks can run in parallel.
 */
public record Plan(List<SubTask> subTasks, List<List<String>> stages) {
    public Plan {
        subTasks = List.copyOf(subTasks);
        stages = stages.stream().map(List::copyOf).toList();
    }
}
