package dev.agentswarm.orchestrator.swarm;

import java.util.HashMap;
import java.util.Map;

/**
 * What an orchestrator's subtree has spent of its {@link SwarmBudget} (sub-agents spawned, policy turns,
 * generated tokens) and which budget ran out first. Episodes report their running totals while they run
 * and their final ones when they answer; this keeps what each has reported, so only what is new counts.
 */
final class SwarmSpending {

    /** A budget passed: which one, and how, as the trace and the orchestrator's observation say it. */
    record Passed(String budget, String detail) {}

    private final SwarmBudget budget;
    private final Map<String, long[]> reported = new HashMap<>(); // episode id -> {turns, tokens} reported so far
    private int subAgents;
    private long turns;
    private long tokens;
    private String exhausted;
    private String exhaustedDetail;

    SwarmSpending(SwarmBudget budget) {
        this.budget = budget;
    }

    /** Takes up the counts and the exhausted budget a journal held. */
    void restore(SwarmLedger ledger) {
        subAgents = ledger.subAgents();
        turns = ledger.turns();
        tokens = ledger.tokens();
        exhausted = ledger.exhausted();
        exhaustedDetail = ledger.exhaustedDetail();
    }

    /** What a running episode's totals add to what it reported before, as {turns, tokens}; a stale report adds nothing. */
    long[] progress(String episodeId, long episodeTurns, long episodeTokens) {
        long[] before = reported.computeIfAbsent(episodeId, k -> new long[2]);
        long[] added = {Math.max(0, episodeTurns - before[0]), Math.max(0, episodeTokens - before[1])};
        before[0] = Math.max(before[0], episodeTurns);
        before[1] = Math.max(before[1], episodeTokens);
        return added;
    }

    /** What an answered episode's final totals add to what it reported, as {turns, tokens}; its reports are forgotten. */
    long[] settle(String episodeId, long episodeTurns, long episodeTokens) {
        long[] before = reported.remove(episodeId);
        return new long[] {episodeTurns - (before == null ? 0 : before[0]), episodeTokens - (before == null ? 0 : before[1])};
    }

    /** Counts spending; returns the budget it has now passed (turns first, then tokens, then sub-agents), or null. */
    Passed add(int subAgentsAdded, long turnsAdded, long tokensAdded) {
        subAgents += subAgentsAdded;
        turns += turnsAdded;
        tokens += tokensAdded;
        if (turns >= budget.maxTurns()) return new Passed("turns", turns + " of " + budget.maxTurns() + " policy turns used");
        if (tokens >= budget.maxTokens()) return new Passed("tokens", tokens + " of " + budget.maxTokens() + " tokens generated");
        if (subAgents > budget.maxSubAgents()) {
            return new Passed("subagents", subAgents + " sub-agents spawned, over the budget of " + budget.maxSubAgents());
        }
        return null;
    }

    /** Marks {@code which} exhausted; false when a budget already was (the first one stays). */
    boolean exhaust(String which, String detail) {
        if (exhausted != null) return false;
        exhausted = which;
        exhaustedDetail = detail;
        return true;
    }

    int subAgents() {
        return subAgents;
    }

    long turns() {
        return turns;
    }

    long tokens() {
        return tokens;
    }

    /** The budget that ran out first, or null while none has. */
    String exhausted() {
        return exhausted;
    }

    String exhaustedDetail() {
        return exhaustedDetail;
    }
}
