package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.TurnCredit;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One τ² task's episode: a live environment in the task's initial state, the domain's agent tools bound
 * to it, the simulated user the agent talks with, and the conversation as τ² records it (the agent's
 * messages and calls with their answers, the user's messages and calls) — which is what the reward is
 * computed from, as τ²'s evaluator computes it from its trajectory.
 */
final class Tau2Episode implements TaskEnvironment {

    private final Tau2Domain domain;
    private final JsonNode task;
    private final Tau2Environment live;
    private final List<Tau2Message> log = new ArrayList<>();
    private final List<Tool> tools;
    private final ConversationPartner partner;
    private final String episodeId;
    private final Tau2Judge judge;
    private final boolean turnCredit;
    /** Messages of the task's own history at the start of the log: not steps of this conversation. */
    private final int historySize;
    private int userCalls;
    /** The agent's turn whose calls are running (its words, calls, and their answers so far), or null; recorded whole when it ends. */
    private OpenTurn turn;
    /** The episode is over: nothing more runs on its environment. */
    private boolean closed;
    /** Where the scripted user is in its task's actions. */
    private int nextUserAction;

    /**
     * @param modelUser makes the model-played user for this episode, or null for the scripted one
     * @param judge grades the task's natural-language assertions, or null
     * @param turnCredit the episode's reward is seed 003's shaped one (τ²'s plus α times the share of checks that held)
     */
    Tau2Episode(Tau2Domain domain, JsonNode task, String episodeId, java.util.function.Function<Tau2Episode, ConversationPartner> modelUser,
                Tau2Judge judge, boolean turnCredit) {
        this.turnCredit = turnCredit;
        this.domain = domain;
        this.task = task;
        this.episodeId = episodeId;
        this.judge = judge;
        this.live = domain.fresh();
        List<Tau2Message> history = Tau2Evaluator.history(task);
        live.setState(task.get("initial_state"), history);
        log.addAll(history);
        this.historySize = history.size();
        this.tools = live.agent.tools().stream().map(f -> (Tool) new AgentTool(f.spec())).toList();
        this.partner = modelUser == null ? new ScriptedUser(task, this) : modelUser.apply(this);
    }

    @Override
    public List<Tool> tools() {
        return tools;
    }

    @Override
    public ConversationPartner partner() {
        return partner;
    }

    private record OpenTurn(String text, List<Tau2Message.Call> calls, Map<String, Tau2Message> answers) {

        /** A call of this turn that has not been answered yet. */
        boolean awaits(String id) {
            return !answers.containsKey(id) && calls.stream().anyMatch(c -> c.id().equals(id));
        }
    }

    /**
     * The agent's turn as τ² records it: one message with its words and calls, then each call's answer in the
     * calls' order. A call of a tool the agent does not have is answered here as τ²'s environment answers it
     * (our executor refuses it before any tool sees it), and counts as a failed call.
     */
    @Override
    public synchronized void agentCalls(String text, List<ToolCall> calls) {
        closeTurn();
        turn = new OpenTurn(text == null || text.isBlank() ? null : text,
                calls.stream().map(c -> new Tau2Message.Call(c.id(), c.name(), c.arguments(), Tau2Message.Requestor.ASSISTANT)).toList(),
                new java.util.HashMap<>());
        for (Tau2Message.Call call : turn.calls()) {
            if (!live.agent.isTool(call.name())) {
                turn.answers().put(call.id(), Tau2Message.tool(call.id(), "Error: Tool '" + call.name() + "' not found.",
                        Tau2Message.Requestor.ASSISTANT, true));
            }
        }
    }

    /**
     * Records the agent's open turn before anything else is recorded or read: its message with the calls that
     * ran, then their answers in order. Calls that never ran (the executor refused them, a resumed episode did
     * not run them again) are left out, so the grading's replay runs nothing that did not run here.
     */
    private void closeTurn() {
        if (turn == null) return;
        List<Tau2Message.Call> ran = turn.calls().stream().filter(c -> turn.answers().containsKey(c.id())).toList();
        if (!ran.isEmpty() || turn.text() != null) log.add(new Tau2Message(Tau2Message.Role.ASSISTANT, turn.text(), ran, null, null, false));
        for (Tau2Message.Call c : ran) log.add(turn.answers().get(c.id()));
        turn = null;
    }

    synchronized void agentSaid(String text) {
        closeTurn();
        log.add(Tau2Message.text(Tau2Message.Role.ASSISTANT, text));
    }

    synchronized void userSaid(String text) {
        closeTurn();
        log.add(Tau2Message.text(Tau2Message.Role.USER, text));
    }

    /**
     * The next action the task gives the user, done on the user's own tools and recorded as the user's call;
     * its answer, or null when none is left.
     */
    synchronized String runNextUserAction() {
        JsonNode actions = task.path("evaluation_criteria").path("actions");
        while (nextUserAction < actions.size() && !"user".equals(actions.get(nextUserAction).path("requestor").asText())) nextUserAction++;
        if (nextUserAction >= actions.size()) return null;
        JsonNode action = actions.get(nextUserAction++);
        return userCalled(null, List.of(new ToolCall("user-" + userCalls++, action.path("name").asText(), action.path("arguments")))).get(0);
    }

    /**
     * The user's tools as its model is offered them: the domain's user toolkit, or the ones the task's
     * {@code user_tools} names (as τ² filters them); none where the domain gives the user none.
     */
    List<ToolSpec> userTools() {
        if (live.user == null) return List.of();
        JsonNode include = task.path("user_tools");
        return live.user.tools().stream()
                .filter(f -> !include.isArray() || java.util.stream.StreamSupport.stream(include.spliterator(), false).anyMatch(n -> n.asText().equals(f.name())))
                .map(Toolkit.Function::spec).toList();
    }

    /**
     * Calls the user made (with the words it sent along, which the agent does not see), run on the user's
     * side of the environment and recorded as τ² records them: one user message with the calls, then
     * each answer. The answers, in order.
     */
    synchronized List<String> userCalled(String text, List<ToolCall> calls) {
        if (closed) throw new IllegalStateException("the episode is over: the user's calls do not run");
        closeTurn();
        List<Tau2Message.Call> recorded = calls.stream()
                .map(c -> new Tau2Message.Call(c.id(), c.name(), c.arguments(), Tau2Message.Requestor.USER)).toList();
        log.add(new Tau2Message(Tau2Message.Role.USER, text == null || text.isEmpty() ? null : text, recorded, null, null, false));
        List<String> answers = new ArrayList<>();
        for (Tau2Message.Call call : recorded) {
            Tau2Environment.Response r = live.respond(call);
            log.add(Tau2Message.tool(call.id(), r.content(), Tau2Message.Requestor.USER, r.error()));
            answers.add(r.content());
        }
        return answers;
    }

    /** τ²'s orchestrator would have ended the conversation here: the episode stops, and earns nothing. */
    @Override
    public synchronized String limitReached() {
        closeTurn();
        return limitReached(log, historySize, MAX_STEPS, MAX_ERRORS);
    }

    /** The conversation so far, as τ² records it. */
    synchronized List<Tau2Message> conversation() {
        closeTurn();
        return List.copyOf(log);
    }

    @Override
    public RewardBreakdown score(Trajectory trajectory) {
        return breakdown(grade(trajectory), null);
    }

    /** With a judge, a task its assertions gate is graded by it, without holding the episode's thread. */
    @Override
    public CompletionStage<RewardBreakdown> scoreAsync(Trajectory trajectory) {
        Tau2Evaluator.Result r = grade(trajectory);
        if (r.reward() != null || judge == null) return CompletableFuture.completedFuture(breakdown(r, null));
        return judge.met(episodeId, conversation(), task.path("evaluation_criteria").path("nl_assertions"))
                .thenApply(met -> breakdown(r, met));
    }

    private Tau2Evaluator.Result grade(Trajectory trajectory) {
        List<Tau2Message> conversation = conversation();
        boolean stopped = trajectory.stopReason() == StopReason.USER_STOP && withinLimits(conversation, historySize, MAX_STEPS, MAX_ERRORS);
        return Tau2Evaluator.evaluate(task, conversation, stopped, domain::fresh, domain::matchesGold);
    }

    /** τ²'s limits on a conversation: 200 steps (a message, or a turn's tool answers, each one step) and 10 failed tool calls. */
    static final int MAX_STEPS = 200;
    static final int MAX_ERRORS = 10;

    /**
     * Whether τ²'s orchestrator would have let the conversation end as it did: after each step that does not
     * go to the tools it stops the run once it has taken {@code maxSteps} steps or seen {@code maxErrors}
     * failed tool calls (agent's and user's together), which then earns no reward, even if the user's stop
     * came in that same step. The task's own history and the greeting are not steps.
     */
    static boolean withinLimits(List<Tau2Message> conversation, int historySize, int maxSteps, int maxErrors) {
        return limitReached(conversation, historySize, maxSteps, maxErrors) == null;
    }

    /** Which of τ²'s limits ended the conversation ({@link #withinLimits}), or null. */
    static String limitReached(List<Tau2Message> conversation, int historySize, int maxSteps, int maxErrors) {
        int steps = 0;
        int errors = 0;
        for (int i = historySize + 1; i < conversation.size(); i++) {
            Tau2Message m = conversation.get(i);
            if (m.role() == Tau2Message.Role.TOOL) {
                if (m.error()) errors++;
                boolean lastOfBatch = i + 1 == conversation.size() || conversation.get(i + 1).role() != Tau2Message.Role.TOOL;
                if (!lastOfBatch) continue;
            } else if (m.hasCalls()) {
                steps++;
                continue; // on to the tools: no check in between
            }
            steps++;
            if (steps >= maxSteps) return "τ²'s limit of " + maxSteps + " steps reached";
            if (errors >= maxErrors) return "τ²'s limit of " + maxErrors + " failed tool calls reached";
        }
        return null;
    }

    /** The components; {@code judged} is the judge's verdict on the assertions where it was asked, else null. */
    private RewardBreakdown breakdown(Tau2Evaluator.Result r, Boolean judged) {
        Map<String, Double> c = new LinkedHashMap<>();
        Double reward = r.reward();
        if (reward == null && judged != null) reward = judged ? 1.0 : 0.0; // the other components were all 1
        c.put("pass", reward != null && reward >= 1.0 - 1e-6 ? 1.0 : 0.0);
        c.putAll(r.components());
        if (judged != null) c.put("nl_assertion", judged ? 1.0 : 0.0);
        if (reward == null) c.put("judge_needed", 1.0); // its natural-language assertions decide, and no judge was given
        if (!turnCredit) return new RewardBreakdown(c, reward == null ? 0.0 : reward);
        double partial = TurnCredit.partialScore(r.actions(), r.communicate(), r.assertions(), r.db(), TurnCredit.Weights.DEFAULT);
        c.put("partial", partial);
        return new RewardBreakdown(c, TurnCredit.shaped(reward == null ? 0.0 : reward, partial, TurnCredit.ALPHA));
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    /** An agent tool of the domain, answered by this episode's environment as τ² answers it ("Error: ..." included). */
    private final class AgentTool implements Tool {
        private final ToolSpec spec;

        AgentTool(ToolSpec spec) {
            this.spec = spec;
        }

        @Override
        public ToolSpec spec() {
            return spec;
        }

        /** τ²'s tools take any arguments and answer wrong ones with Python's error, which counts as a failed call. */
        @Override
        public boolean checksOwnArguments() {
            return true;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            synchronized (Tau2Episode.this) {
                String id = context == null || context.callId() == null ? "call-" + log.size() : context.callId();
                Tau2Message.Call call = new Tau2Message.Call(id, spec.name(), arguments, Tau2Message.Requestor.ASSISTANT);
                boolean ofTheTurn = turn != null && turn.awaits(id);
                if (!ofTheTurn) { // a call outside an episode's turn (tests, the oracle's own runs): its own message
                    closeTurn();
                    log.add(Tau2Message.calls(Tau2Message.Role.ASSISTANT, List.of(call)));
                }
                Tau2Environment.Response r = live.respond(call);
                Tau2Message answer = Tau2Message.tool(id, r.content(), Tau2Message.Requestor.ASSISTANT, r.error());
                if (ofTheTurn) turn.answers().put(id, answer);
                else log.add(answer);
                return CompletableFuture.completedFuture(r.content());
            }
        }
    }
}
