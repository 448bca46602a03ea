package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.orchestrator.swarm.RoundState.State;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParlRewardTest {

    private static final SwarmSettings.Parl PARL = new SwarmSettings.Parl(0.3, 0.2, 100, 4);

    /** A root result with one sub-agent per state, 7 critical steps. */
    private static SwarmResult result(String answer, Trajectory orchestrator, State... states) {
        List<SwarmResult.SubAgent> subAgents = new ArrayList<>();
        for (int i = 0; i < states.length; i++) {
            SubTask t = new SubTask("s" + i, "goal", SubAgentMode.GENERAL, List.of(), List.of());
            subAgents.add(new SwarmResult.SubAgent("root/s" + i, 1, t, states[i], states[i] == State.DONE ? "x" : null, null,
                    1, 3, 100, List.of(), null));
        }
        return new SwarmResult("root", answer, StopReason.FINAL_ANSWER, null, orchestrator, subAgents, List.of(), null,
                new SwarmResult.Metrics(7, 20, 20 / 7.0, 0, 0, states.length, 10, 1000, 1), null);
    }

    private static Trajectory scored(Map<String, Double> components) {
        return Trajectory.notRun("e1", "g1", "t1", StopReason.FINAL_ANSWER, null).withReward(new RewardBreakdown(components, 0.5));
    }

    private static final Task GOLD_42 = new Task("t1", "What is six times seven?", "42", Map.of());

    @Test
    void lambdaAnnealsLinearlyToZeroAndStaysThere() {
        assertEquals(0.3, ParlReward.annealed(0.3, 0, 100), 1e-12);
        assertEquals(0.225, ParlReward.annealed(0.3, 25, 100), 1e-12);
        assertEquals(0.15, ParlReward.annealed(0.3, 50, 100), 1e-12);
        assertEquals(0.0, ParlReward.annealed(0.3, 100, 100), 1e-12);
        assertEquals(0.0, ParlReward.annealed(0.3, 250, 100), 1e-12, "never negative past the end");
        assertEquals(0.3, ParlReward.annealed(0.3, 1_000_000, 0), 1e-12, "anneal-steps 0: never annealed");
    }

    @Test
    void aWorkedExampleByHand() {
        // 3 spawned of a target of 4, 2 answered, at step 50 of 100: λ1 = 0.3/2, λ2 = 0.2/2.
        RewardBreakdown r = ParlReward.of(result("x", null, State.DONE, State.FAILED, State.DONE), 0.5, 50, PARL);
        assertEquals(List.of("perf", "parallel", "finish", "lambda_parallel", "lambda_finish", "critical_steps"),
                List.copyOf(r.components().keySet()));
        assertEquals(0.5, r.components().get("perf"), 1e-12);
        assertEquals(0.75, r.components().get("parallel"), 1e-12);
        assertEquals(2.0 / 3, r.components().get("finish"), 1e-12);
        assertEquals(0.15, r.components().get("lambda_parallel"), 1e-12);
        assertEquals(0.1, r.components().get("lambda_finish"), 1e-12);
        assertEquals(7.0, r.components().get("critical_steps"), 1e-12);
        assertEquals(0.5 + 0.15 * 0.75 + 0.1 * 2 / 3, r.total(), 1e-12);
    }

    @Test
    void aSubAgentLostToTheInfrastructureDoesNotCountAgainstFinishing() {
        SwarmResult r = result("x", null, State.DONE, State.FAILED, State.FAILED, State.DONE);
        List<SwarmResult.SubAgent> subAgents = new ArrayList<>(r.subAgents());
        SwarmResult.SubAgent own = subAgents.get(1); // failed by its own doing: it ran out of turns
        subAgents.set(1, withAttempts(own, Trajectory.notRun("a1", "g", "s1", StopReason.MAX_TURNS, null)));
        SwarmResult.SubAgent lost = subAgents.get(2); // its node died, twice
        subAgents.set(2, withAttempts(lost, Trajectory.notRun("a2", "g", "s2", StopReason.CRASHED, "no answer")
                .failedBy(InfraFailure.NODE_LOST, null), Trajectory.notRun("a3", "g", "s2", StopReason.POLICY_ERROR, "refused")
                .failedBy(InfraFailure.POLICY_UNAVAILABLE, null)));
        SwarmResult mixed = new SwarmResult(r.agent(), r.answer(), r.stopReason(), r.error(), r.orchestrator(), subAgents, r.missing(),
                r.budgetExhausted(), r.metrics(), null);
        assertEquals(2.0 / 3, ParlReward.of(mixed, 1.0, 0, PARL).components().get("finish"), 1e-12,
                "2 answered of the 3 the orchestrator answers for; before, 2 of 4");
        assertEquals(1.0, ParlReward.of(mixed, 1.0, 0, PARL).components().get("parallel"), 1e-12, "all four were spawned");
    }

    private static SwarmResult.SubAgent withAttempts(SwarmResult.SubAgent s, Trajectory... attempts) {
        return new SwarmResult.SubAgent(s.agent(), s.round(), s.task(), s.state(), s.answer(), s.detail(), attempts.length, s.steps(),
                s.tokens(), List.of(attempts), s.nested());
    }

    @Test
    void spawningBeyondTheTargetEarnsNothingMore() {
        RewardBreakdown four = ParlReward.of(result("x", null, State.DONE, State.DONE, State.DONE, State.DONE), 1.0, 0, PARL);
        RewardBreakdown six = ParlReward.of(result("x", null, State.DONE, State.DONE, State.DONE, State.DONE, State.DONE, State.DONE),
                1.0, 0, PARL);
        assertEquals(1.0, four.components().get("parallel"), 1e-12);
        assertEquals(1.0, six.components().get("parallel"), 1e-12);
        assertEquals(1.0 + 0.3 + 0.2, four.total(), 1e-12);
        assertEquals(four.total(), six.total(), 1e-12);
    }

    @Test
    void nothingSpawnedEarnsOnlyTheOutcomeAndAnnealedShapingLeavesItToo() {
        RewardBreakdown none = ParlReward.of(result("x", null), 0.8, 0, PARL);
        assertEquals(0.0, none.components().get("parallel"), 1e-12);
        assertEquals(0.0, none.components().get("finish"), 1e-12, "no division by zero");
        assertEquals(0.8, none.total(), 1e-12);

        RewardBreakdown late = ParlReward.of(result("x", null, State.DONE, State.DONE), 0.8, 400, PARL);
        assertEquals(0.0, late.components().get("lambda_parallel"), 1e-12);
        assertEquals(0.8, late.total(), 1e-12, "after anneal-steps only the outcome counts");
    }

    @Test
    void perfIsTheSuitesOutcomeWhenItScoredTheEpisode() {
        Trajectory suiteScored = scored(Map.of("outcome", 0.25, "format", 1.0));
        assertEquals(0.25, ParlReward.perf(GOLD_42, result("42", suiteScored)), 1e-12, "the suite's score wins over verification");
        Trajectory noOutcome = scored(Map.of("format", 1.0));
        assertEquals(1.0, ParlReward.perf(GOLD_42, result("42", noOutcome)), 1e-12, "no outcome component: verify the answer");
    }

    @Test
    void perfOtherwiseVerifiesTheAnswerAgainstTheGold() {
        Trajectory unscored = Trajectory.notRun("e1", "g1", "t1", StopReason.FINAL_ANSWER, null);
        assertEquals(1.0, ParlReward.perf(GOLD_42, result("The answer is 42", unscored)), 1e-12);
        assertEquals(1.0, ParlReward.perf(GOLD_42, result("42", null)), 1e-12, "no orchestrator trajectory at all");
        assertEquals(0.0, ParlReward.perf(GOLD_42, result("41", unscored)), 1e-12);
        assertEquals(0.0, ParlReward.perf(GOLD_42, result("41 or 42", unscored)), 1e-12, "hedging with another number is not verified");
        assertEquals(0.0, ParlReward.perf(GOLD_42, result(null, unscored)), 1e-12, "no answer");
        assertEquals(0.0, ParlReward.perf(Task.of("t1", "What is six times seven?"), result("42", unscored)), 1e-12, "no gold");
        assertEquals(0.0, ParlReward.perf(new Task("t1", "q", "  ", Map.of()), result("42", unscored)), 1e-12, "blank gold");
    }
}
