package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.protocol.Trajectory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a swarm's rounds came to when its orchestrator ends: each sub-agent's result, the agents whose
 * answers are missing (down its nested orchestrators' subtrees too) and the steps on the critical path.
 * It reads the rounds as the ledger holds them, so a resumed swarm tallies exactly what a live one would.
 */
record SwarmTally(List<SwarmResult.SubAgent> subAgents, List<String> missing, CriticalSteps.Summary steps) {

    /**
     * The tally of {@code rounds}, the orchestrator having taken {@code orchestratorTurns} turns in all;
     * {@code trajectories} and {@code nestedResults} by agent path.
     */
    static SwarmTally of(List<SwarmLedger.Round> rounds, int orchestratorTurns, Map<String, List<Trajectory>> trajectories,
                         Map<String, SwarmResult> nestedResults) {
        List<CriticalSteps.Round> steps = new ArrayList<>();
        int previousTurn = 0;
        List<SwarmResult.SubAgent> subAgents = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (SwarmLedger.Round r : rounds) {
            steps.add(new CriticalSteps.Round(Math.max(0, r.turn() - previousTurn), r.state().plan(), r.state().steps()));
            previousTurn = r.turn();
            for (SubTask t : r.state().plan().subTasks()) {
                RoundState.Status s = r.state().status(t.id());
                String agent = r.agents().get(t.id());
                subAgents.add(new SwarmResult.SubAgent(agent, r.state().round(), t, s.state(), s.answer(), s.detail(), s.attempts(),
                        s.steps(), s.tokens(), trajectories.getOrDefault(agent, List.of()), nestedResults.get(agent)));
                if (s.state() != RoundState.State.DONE) missing.add(agent);
                else if (nestedResults.containsKey(agent)) missing.addAll(nestedResults.get(agent).missing());
            }
        }
        steps.add(new CriticalSteps.Round(Math.max(0, orchestratorTurns - previousTurn), null, null));
        return new SwarmTally(subAgents, missing, CriticalSteps.of(steps));
    }
}
