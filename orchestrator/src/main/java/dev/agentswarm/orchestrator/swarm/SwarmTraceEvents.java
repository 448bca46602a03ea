package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.SwarmProtocol.EpisodeProgress;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;
import java.util.Map;

/**
 * The events an orchestrator writes to its swarm's {@link SwarmTrace}, one method per kind. The trace's
 * readers (the live view, the HTML page, the command line) depend on each kind's fields and their order,
 * so they are spelled out once here rather than built inline where the orchestrator decides things.
 */
final class SwarmTraceEvents {

    private final SwarmTrace trace;

    SwarmTraceEvents(SwarmTrace trace) {
        this.trace = trace;
    }

    /** {@code swarm_started}: the root's task and the budgets it runs under. */
    void swarmStarted(String agent, String task, SwarmBudget budget, SwarmSettings settings) {
        ObjectNode e = trace.event(agent, "swarm_started").put("task", task);
        ObjectNode b = e.putObject("budget");
        b.put("max_subagents", budget.maxSubAgents()).put("max_parallel", budget.maxParallel()).put("max_turns", budget.maxTurns())
                .put("max_tokens", budget.maxTokens()).put("deadline_ms", budget.deadline().toMillis())
                .put("max_depth", settings.maxDepth()).put("retries", settings.retries());
        trace.emit(e);
    }

    /** {@code swarm_resumed}: what the journal held when the orchestrator went on from it. */
    void swarmResumed(String agent, SwarmLedger ledger) {
        trace.emit(trace.event(agent, "swarm_resumed").put("events", ledger.events()).put("rounds", ledger.rounds().size())
                .put("running", ledger.running().size()));
    }

    /** {@code agent_started} of an orchestrator's own episode; {@code parent} null for the root. */
    void orchestratorStarted(String agent, String parent, String goal, String episodeId) {
        ObjectNode started = trace.event(agent, "agent_started").put("mode", "orchestrator").put("goal", goal)
                .put("attempt", 1).put("episode_id", episodeId);
        if (parent == null) started.putNull("parent");
        else started.put("parent", parent);
        started.putArray("depends_on");
        trace.emit(started);
    }

    /** {@code agent_started} of an attempt of a sub-task run as an episode (a nested orchestrator announces itself). */
    void subAgentStarted(String agent, String parent, SubTask t, int attempt, String episodeId) {
        ObjectNode e = trace.event(agent, "agent_started").put("parent", parent).put("mode", t.mode().wire())
                .put("goal", t.goal()).put("attempt", attempt).put("episode_id", episodeId);
        t.dependsOn().forEach(e.putArray("depends_on")::add);
        trace.emit(e);
    }

    /** {@code turn}: an episode's progress, built on the trace's writer thread (turns are frequent). */
    void turn(String agent, EpisodeProgress p) {
        trace.emitLazily(() -> trace.event(agent, "turn").put("turn", p.turns()).put("action", p.lastAction()).put("tokens", p.tokens()));
    }

    /** {@code plan}, refused: the observation the orchestrator gets back. */
    void planRefused(String agent, int round, int turn, String observation) {
        trace.emit(plan(agent, false, round, turn).put("observation", observation));
    }

    /** {@code plan}, accepted: each sub-task with its agent path, the stages and the join. */
    void planAccepted(String agent, int round, int turn, Plan plan, Map<String, String> agents) {
        ObjectNode e = plan(agent, true, round, turn);
        ArrayNode list = e.putArray("subtasks");
        for (SubTask t : plan.subTasks()) {
            ObjectNode n = list.addObject().put("id", t.id()).put("agent", agents.get(t.id())).put("goal", t.goal())
                    .put("mode", t.mode().wire());
            t.dependsOn().forEach(n.putArray("depends_on")::add);
        }
        ArrayNode stages = e.putArray("stages");
        for (List<String> stage : plan.stages()) stage.forEach(stages.addArray()::add);
        e.put("join", plan.join().describe());
        trace.emit(e);
    }

    private ObjectNode plan(String agent, boolean accepted, int round, int turn) {
        return trace.event(agent, "plan").put("accepted", accepted).put("round", round).put("turn", turn);
    }

    /** Every message of an episode that started at {@code startNanos}. */
    void messages(String agent, long startNanos, Trajectory t) {
        trace.emitMessages(agent, startNanos, t);
    }

    /** {@code retry}: attempt {@code attempt} starts because the one before failed for {@code reason}. */
    void retry(String agent, int attempt, String reason) {
        trace.emit(trace.event(agent, "retry").put("attempt", attempt).put("reason", reason));
    }

    /** {@code agent_finished} of an episode that answered: {@code state} is done, cancelled or failed. */
    void agentFinished(String agent, Trajectory t, String state, String error, int attempt) {
        trace.emit(finished(agent, state, t.stopReason(), t.finalAnswer(), error, t.stats().turns(), t.stats().completionTokens(),
                attempt));
    }

    /** {@code agent_finished} of a nested orchestrator that stopped without a result. */
    void nestedCrashed(String agent) {
        trace.emit(trace.event(agent, "agent_finished").put("state", "failed").put("stop_reason", StopReason.CRASHED.name())
                .putNull("answer").put("error", "the nested orchestrator crashed").put("turns", 0).put("tokens", 0).put("attempt", 1));
    }

    /** {@code agent_finished} of an orchestrator's own episode, with the swarm's answer or null. */
    void orchestratorFinished(String agent, Trajectory own, String answer) {
        String state = answer != null ? "done" : own.stopReason() == StopReason.CANCELLED ? "cancelled" : "failed";
        trace.emit(finished(agent, state, own.stopReason(), answer, own.error(), own.stats().turns(), own.stats().completionTokens(), 1));
    }

    private ObjectNode finished(String agent, String state, StopReason stopReason, String answer, String error, int turns,
                                int tokens, int attempt) {
        return trace.event(agent, "agent_finished").put("state", state).put("stop_reason", stopReason.name())
                .put("answer", answer).put("error", error).put("turns", turns).put("tokens", tokens).put("attempt", attempt);
    }

    /** {@code budget_exhausted}: which budget ran out and how. */
    void budgetExhausted(String agent, String which, String detail) {
        trace.emit(trace.event(agent, "budget_exhausted").put("budget", which).put("detail", detail));
    }

    /** {@code swarm_finished}: the root's answer, what is missing and the metrics. */
    void swarmFinished(String agent, String answer, List<String> missing, SwarmResult.Metrics m) {
        ObjectNode e = trace.event(agent, "swarm_finished").put("answer", answer);
        missing.forEach(e.putArray("missing")::add);
        e.set("metrics", metricsJson(m));
        trace.emit(e);
    }

    /** {@code journal_refused}: the journal is not this swarm's to resume or write. */
    void journalRefused(String agent, String why) {
        trace.emit(trace.event(agent, "journal_refused").put("error", why));
    }

    /** The metrics as the trace and the command line's JSON show them. */
    static ObjectNode metricsJson(SwarmResult.Metrics m) {
        ObjectNode o = Json.object();
        o.put("critical_steps", m.criticalSteps()).put("total_steps", m.totalSteps())
                .put("parallelism", Math.round(m.parallelism() * 1000) / 1000.0)
                .put("wall_ms", Math.round(m.wallNanos() / 1e4) / 100.0).put("serial_ms", Math.round(m.serialNanos() / 1e4) / 100.0)
                .put("wall_over_serial", m.serialNanos() == 0 ? 0 : Math.round(1e4 * m.wallNanos() / (double) m.serialNanos()) / 1e4)
                .put("subagents", m.subAgents()).put("turns", m.turns()).put("tokens", m.tokens()).put("rounds", m.rounds());
        return o;
    }
}
