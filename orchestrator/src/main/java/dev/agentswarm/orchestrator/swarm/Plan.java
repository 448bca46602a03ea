package dev.agentswarm.orchestrator.swarm;

import java.util.List;

/**
 * A checked plan: its sub-tasks in the order given, its stages (each the sub-tasks whose
 * dependencies all lie in earlier stages, so a stage's sub-tasks can run in parallel) and when the
 * round is over for the orchestrator ({@link Join}).
 */
public record Plan(List<SubTask> subTasks, List<List<String>> stages, Join join) {
    public Plan {
        subTasks = List.copyOf(subTasks);
        stages = stages.stream().map(List::copyOf).toList();
        join = join == null ? Join.ALL : join;
    }

    public Plan(List<SubTask> subTasks, List<List<String>> stages) {
        this(subTasks, stages, Join.ALL);
    }

    public SubTask subTask(String id) {
        for (SubTask t : subTasks) if (t.id().equals(id)) return t;
        throw new IllegalArgumentException("no sub-task " + id + " in the plan");
    }
}
