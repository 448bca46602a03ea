package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.reward.AnswerVerification;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Kimi K2.5's PARL reward for training the orchestrator: {@code r = r_perf + λ1·r_parallel +
 * λ2·r_finish}. {@code r_parallel} pays for spawning sub-agents (up to {@code parallel-target}, so
 * spawning more for its own sake earns nothing) against serial collapse; {@code r_finish} pays for the
 * share of spawned sub-agents that answered, against spurious parallelism (a sub-agent whose last attempt
 * was lost to the infrastructure, its node or policy server down, is left out: that is not the
 * orchestrator's doing); both λ anneal linearly to 0
 * over {@code anneal-steps} training steps, leaving the task's outcome. The critical steps travel with
 * it as a component, the latency the run paid.
 */
public final class ParlReward {

    private ParlReward() {}

    /** A sub-agent that failed because its last attempt's infrastructure did (not its own answer, nor the plan's). */
    static boolean lostToInfrastructure(SwarmResult.SubAgent s) {
        if (s.state() != RoundState.State.FAILED || s.trajectories().isEmpty()) return false;
        return s.trajectories().get(s.trajectories().size() - 1).infraFailure() != null;
    }

    /** λ at a training step: linear from its start value to 0 at {@code annealSteps} (0 = never annealed). */
    public static double annealed(double lambda, long step, long annealSteps) {
        if (annealSteps == 0) return lambda;
        return lambda * Math.max(0, 1 - (double) step / annealSteps);
    }

    /** The reward of an orchestrator's result whose task outcome scored {@code perf} in [0, 1], at training step {@code step}. */
    public static RewardBreakdown of(SwarmResult result, double perf, long step, SwarmSettings.Parl p) {
        int spawned = result.subAgents().size();
        long answered = result.subAgents().stream().filter(s -> s.state() == RoundState.State.DONE).count();
        long judged = spawned - result.subAgents().stream().filter(ParlReward::lostToInfrastructure).count();
        double parallel = Math.min(1.0, (double) spawned / p.parallelTarget());
        double finish = judged == 0 ? 0 : (double) answered / judged;
        double l1 = annealed(p.lambdaParallel(), step, p.annealSteps());
        double l2 = annealed(p.lambdaFinish(), step, p.annealSteps());
        Map<String, Double> c = new LinkedHashMap<>();
        c.put("perf", perf);
        c.put("parallel", parallel);
        c.put("finish", finish);
        c.put("lambda_parallel", l1);
        c.put("lambda_finish", l2);
        c.put("critical_steps", (double) result.metrics().criticalSteps());
        return new RewardBreakdown(c, perf + l1 * parallel + l2 * finish);
    }

    /**
     * The task's outcome: the suite's score of the orchestrator's episode when a suite scored it, else
     * the answer verified against the task's gold answer, else 0 (nothing to judge it by).
     */
    public static double perf(Task task, SwarmResult result) {
        var scored = result.orchestrator() == null ? null : result.orchestrator().reward();
        if (scored != null && scored.components().containsKey("outcome")) return scored.components().get("outcome");
        if (result.answer() == null || task.answer() == null || task.answer().isBlank()) return 0;
        return AnswerVerification.verify(result.answer(), task.answer(), AnswerVerification.Rules.DEFAULT).score();
    }
}
