package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.agentswarm.core.CborSerializable;
import java.util.List;

/**
 * Everything one episode did: the messages it started from, every turn with its exact token
 * ids and log-probs, the final answer, why it stopped, its counts and (once scored) its reward.
 * {@code error} explains a policy error or crash; {@code infra} names a failure of the infrastructure
 * under the policy ({@link #outcome()}), null for an episode that failed, if at all, by its own doing.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Trajectory(String episodeId, String groupId, String taskId, List<Message> prompt, List<Turn> turns,
                         String finalAnswer, StopReason stopReason, String error, EpisodeStats stats,
                         RewardBreakdown reward, InfraFailure infra) implements CborSerializable {

    public Trajectory {
        prompt = prompt == null ? List.of() : List.copyOf(prompt);
        turns = turns == null ? List.of() : List.copyOf(turns);
    }

    /** A trajectory of an episode that did not fail for its infrastructure. */
    public Trajectory(String episodeId, String groupId, String taskId, List<Message> prompt, List<Turn> turns,
                      String finalAnswer, StopReason stopReason, String error, EpisodeStats stats, RewardBreakdown reward) {
        this(episodeId, groupId, taskId, prompt, turns, finalAnswer, stopReason, error, stats, reward, null);
    }

    /** The answer for an episode that never ran a turn (rejected, crashed, handed off): its reason and why. */
    public static Trajectory notRun(String episodeId, String groupId, String taskId, StopReason reason, String error) {
        return new Trajectory(episodeId, groupId, taskId, List.of(), List.of(), null, reason, error,
                new EpisodeStats(0, 0, 0, 0, 0, 0, 0), null);
    }

    public Trajectory withReward(RewardBreakdown r) {
        return new Trajectory(episodeId, groupId, taskId, prompt, turns, finalAnswer, stopReason, error, stats, r, infra);
    }

    /** The same trajectory failed for {@code cause} (the reward dropped: there is none to trust), {@code why} added to its error. */
    public Trajectory failedBy(InfraFailure cause, String why) {
        String e = why == null ? error : error == null ? why : error + "; " + why;
        return new Trajectory(episodeId, groupId, taskId, prompt, turns, finalAnswer, stopReason, e, stats, null, cause);
    }

    /**
     * The failure of the infrastructure this episode ended with, or null: {@code infra}, or
     * {@link InfraFailure#CRASHED} for an episode that crashed (a crash is never the policy's answer).
     */
    public InfraFailure infraFailure() {
        if (infra != null) return infra;
        return stopReason == StopReason.CRASHED ? InfraFailure.CRASHED : null;
    }

    /** Whether a learner may train on this trajectory, and as what. */
    public EpisodeOutcome outcome() {
        return EpisodeOutcome.of(this);
    }

    /**
     * About how many bytes this trajectory takes as CBOR: its texts (a byte per char) and arrays with
     * a margin, computed without serialising it (a worker uses it to pick the lane of its answer).
     */
    public long approxWireBytes() {
        long n = 1024 + length(finalAnswer) + length(error) + messagesBytes(prompt);
        for (Turn t : turns) {
            n += 64 + length(t.text()) + 5L * (t.tokenIds() == null ? 0 : t.tokenIds().length)
                    + 5L * (t.logprobs() == null ? 0 : t.logprobs().length) + (t.lossMask() == null ? 0 : t.lossMask().length)
                    + messagesBytes(t.context());
            if (t.toolCalls() != null) for (ToolCall c : t.toolCalls()) n += 64 + (c.arguments() == null ? 0 : 2L * c.arguments().toString().length());
            if (t.toolResults() != null) for (ToolResult r : t.toolResults()) n += 64 + length(r.content());
            if (t.formatErrors() != null) for (String e : t.formatErrors()) n += length(e);
        }
        return n + n / 4;
    }

    private static long messagesBytes(List<Message> messages) {
        if (messages == null) return 0;
        long n = 0;
        for (Message m : messages) n += 32 + length(m.content());
        return n;
    }

    /** A byte per char: most of it is ASCII (a writer that must be sure measures the serialised bytes). */
    private static long length(String s) {
        return s == null ? 0 : s.length();
    }

    /** The same trajectory with every timing zeroed: equal across a recording and its replay. */
    public Trajectory withoutTimings() {
        return new Trajectory(episodeId, groupId, taskId, prompt, turns.stream().map(Turn::withoutTimings).toList(),
                finalAnswer, stopReason, error, stats == null ? null : stats.withoutTimings(), reward, infra);
    }

    public List<Turn> assistantTurns() {
        return turns.stream().filter(Turn::isAssistant).toList();
    }

    /**
     * The conversation exactly as the policy read and wrote it: the prompt, then every turn's text
     * under its role (completions raw, in the episode's format; observations as fed back). A
     * successful episode's transcript is a demonstration for SFT in that format.
     */
    public List<Message> transcript() {
        List<Message> out = new java.util.ArrayList<>(prompt);
        for (Turn t : turns) out.add(new Message(t.role(), t.text(), null, null, null));
        return out;
    }
}
