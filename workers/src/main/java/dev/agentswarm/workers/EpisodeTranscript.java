package dev.agentswarm.workers;

import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.PromptIds;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Timing;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.util.ArrayList;
import java.util.List;

/**
 * What an episode has said and heard so far, and what that cost: the messages the policy is asked
 * with and their tokens (which decide when the context is compressed), the turns its trajectory
 * records, and the counts behind its token budget and stats. The {@link EpisodeActor} decides what
 * happens next; this only keeps the books of what did, so a turn's bookkeeping is tested without an
 * actor system.
 */
final class EpisodeTranscript {

    private final TokenCounter counter;
    private final List<Message> prompt;
    private final List<Message> messages = new ArrayList<>();
    private final List<Turn> turns = new ArrayList<>();
    private int contextTokens;
    private int policyTurns;
    private int budgetUsed;
    private int toolCalls;
    private int toolSuccesses;
    private int formatErrors;
    private int promptTokens;
    private int completionTokens;
    /** The last assistant turn's prompt and completion ids, when the policy said its prompt ids. */
    private int[] lastPrompt;
    private int[] lastCompletion;

    /**
     * @param opening the first message after the system's: the task, or the agent's greeting when a
     *                simulated user holds the task's prompt as its brief
     */
    EpisodeTranscript(Message system, int systemTokens, Message opening, TokenCounter counter) {
        this.counter = counter;
        messages.add(system);
        contextTokens = systemTokens;
        this.prompt = List.of(system, opening);
        append(opening);
    }

    /** The whole conversation so far, as the policy would be asked with it uncompressed (the live list). */
    List<Message> messages() {
        return messages;
    }

    /** The tokens of {@link #messages()}. */
    int contextTokens() {
        return contextTokens;
    }

    /** Policy turns asked so far, the current one included. */
    int policyTurns() {
        return policyTurns;
    }

    /** Tokens generated and observed so far, counted against the episode's token budget. */
    int budgetUsed() {
        return budgetUsed;
    }

    int completionTokens() {
        return completionTokens;
    }

    /** A new policy turn starts; returns its number (1-based). */
    int startTurn() {
        return ++policyTurns;
    }

    /** The current turn's policy call failed and is asked again: it is the same turn, not another. */
    void askTurnAgain() {
        policyTurns--;
    }

    /** Counts the policy's answer; returns the tokens it generated (counted from its text when it did not say). */
    int answered(Completion c) {
        promptTokens += c.promptTokens();
        int generated = c.completionTokens() > 0 ? c.completionTokens() : counter.count(c.text());
        completionTokens += generated;
        budgetUsed += generated;
        return generated;
    }

    /**
     * Records the policy's turn and appends {@code said}, its message as the format renders it. A turn
     * whose completion carries its prompt ids keeps only those that follow the previous turn's.
     */
    void assistant(Completion c, List<ToolCall> calls, List<String> formatErrors, List<Message> compressedContext,
                   Timing timing, Message said) {
        Turn turn = Turn.assistant(turns.size(), c, calls, formatErrors, compressedContext, timing);
        if (c.promptIds().length > 0) {
            turn = turn.withPrompt(PromptIds.store(c.promptIds(), lastPrompt, lastCompletion));
            lastPrompt = c.promptIds();
            lastCompletion = c.tokenIds();
        } else {
            lastPrompt = null;
        }
        turns.add(turn);
        append(said);
    }

    void formatError() {
        formatErrors++;
    }

    /** Counts a round's tool results and observes them as the format rendered them ({@code obs}): one turn, the texts joined. */
    void toolResults(List<ToolResult> results, List<Message> obs, Timing timing) {
        toolCalls += results.size();
        for (ToolResult r : results) {
            if (r.ok()) toolSuccesses++;
        }
        String text = obs.size() == 1 ? obs.get(0).content() : String.join("\n", obs.stream().map(Message::content).toList());
        observe(obs.get(0).role(), text, obs, results, timing);
    }

    /** What the policy reads next (tool results, format feedback, the user's words): a turn, messages and budget. */
    void observe(Role role, String text, List<Message> obs, List<ToolResult> results, Timing timing) {
        turns.add(Turn.observation(turns.size(), role, text, results, timing));
        for (Message m : obs) append(m);
        budgetUsed += counter.count(text);
    }

    /** The agent's last message that called no tool, or null: the answer of a conversation its partner closed. */
    String lastAgentMessage() {
        for (int i = turns.size() - 1; i >= 0; i--) {
            Turn t = turns.get(i);
            if (t.isAssistant() && t.toolCalls().isEmpty()) return t.text();
        }
        return null;
    }

    /** The episode's trajectory as it ends now, {@code elapsedNanos} after it started; not yet scored. */
    Trajectory trajectory(RunEpisode request, StopReason reason, String answer, String error, InfraFailure infra,
                          long elapsedNanos) {
        EpisodeStats stats = new EpisodeStats(policyTurns, toolCalls, toolSuccesses, formatErrors, promptTokens,
                completionTokens, elapsedNanos);
        return new Trajectory(request.episodeId(), request.groupId(), request.task().id(), prompt, turns, answer,
                reason, error, stats, null, infra);
    }

    private void append(Message m) {
        messages.add(m);
        contextTokens += counter.count(m);
    }
}
