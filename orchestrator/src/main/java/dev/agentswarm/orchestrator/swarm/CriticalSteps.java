package dev.agentswarm.orchestrator.swarm;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kimi PARL's latency measure for a swarm: per orchestrator round, the orchestrator's own steps plus
 * the longest dependency path through the sub-agents it spawned (each weighted by its steps: a
 * sub-task starts as soon as its dependencies are done, so the slowest chain, not the sum, is what
 * the round waits for); summed over rounds. The same arithmetic over milliseconds gives the ideal
 * wall time. Against the serial sum it gives the parallelism the swarm achieved.
 */
public final class CriticalSteps {

    /**
     * One orchestrator round: its own steps, and the plan it spawned with each sub-task's steps
     * (null plan for a round that spawned nothing, such as the one that finishes).
     */
    public record Round(long orchestratorSteps, Plan plan, Map<String, Long> subAgentSteps) {
        public Round {
            if (orchestratorSteps < 0) throw new IllegalArgumentException("steps must be >= 0, got " + orchestratorSteps);
            subAgentSteps = subAgentSteps == null ? Map.of() : Map.copyOf(subAgentSteps);
        }
    }

    /** Critical steps, the serial sum of every step taken, and their ratio (achieved parallelism, ≥ 1). */
    public record Summary(long critical, long total) {
        public double parallelism() {
            return critical == 0 ? 1 : (double) total / critical;
        }
    }

    private CriticalSteps() {}

    public static Summary of(List<Round> rounds) {
        long critical = 0;
        long total = 0;
        for (Round r : rounds) {
            critical += r.orchestratorSteps();
            total += r.orchestratorSteps();
            if (r.plan() == null) continue;
            critical += longestPath(r.plan(), r.subAgentSteps());
            for (SubTask t : r.plan().subTasks()) total += weight(r.subAgentSteps(), t.id());
        }
        return new Summary(critical, total);
    }

    /** The heaviest chain of dependencies through the plan, each sub-task weighing its steps (a sub-task that never ran weighs 0). */
    public static long longestPath(Plan plan, Map<String, Long> steps) {
        Map<String, SubTask> byId = new HashMap<>();
        for (SubTask t : plan.subTasks()) byId.put(t.id(), t);
        Map<String, Long> finish = new HashMap<>(); // steps from the round's start to this sub-task's end
        long longest = 0;
        for (List<String> stage : plan.stages()) { // stages come in dependency order
            for (String id : stage) {
                long start = 0;
                for (String d : byId.get(id).dependsOn()) start = Math.max(start, finish.get(d));
                long end = start + weight(steps, id);
                finish.put(id, end);
                longest = Math.max(longest, end);
            }
        }
        return longest;
    }

    private static long weight(Map<String, Long> steps, String id) {
        long w = steps.getOrDefault(id, 0L);
        if (w < 0) throw new IllegalArgumentException("sub-task " + id + " has " + w + " steps");
        return w;
    }
}
