package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutGroupsTest {

    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());
    private static final List<Message> PROMPT = List.of(Message.system("You compute."), Message.user("What is 6*7?"));

    private static Turn assistant(int index, String text, int tokens, FinishReason finish, List<Message> context) {
        int[] ids = new int[tokens];
        float[] logp = new float[tokens];
        for (int i = 0; i < tokens; i++) {
            ids[i] = 100 + i;
            logp[i] = -0.5f;
        }
        return Turn.assistant(index, new Completion(text, List.of(), ids, logp, finish, 0, 10, tokens), List.of(), List.of(), context, null);
    }

    /** A call, its result, then an answer; {@code answerTokens} long, ended by {@code finish}. */
    private static Trajectory episode(String id, double reward, int answerTokens, FinishReason finish) {
        List<Turn> turns = List.of(
                assistant(0, "<tool_call>{\"name\": \"calculator\"}</tool_call>", 3, FinishReason.STOP, null),
                Turn.observation(1, Role.USER, "<tool_response>\n42\n</tool_response>", List.of(), null),
                assistant(2, "42", answerTokens, finish, null));
        return new Trajectory(id, "g", "t", PROMPT, turns, "42", StopReason.FINAL_ANSWER, null, null,
                new RewardBreakdown(Map.of("correct", reward), reward));
    }

    private static RolloutGroups groups(boolean maskTruncated, boolean dynamic, int buffer) {
        return new RolloutGroups(new RolloutGroups.Settings(GroupAdvantages.Scale.GROUP, maskTruncated, dynamic, 10, buffer, 1.0),
                new TurnPrompts(TEMPLATE));
    }

    @Test
    void eachTurnIsRenderedFromTheMessagesItWasAskedWith() {
        Trajectory t = episode("e", 1, 2, FinishReason.STOP);
        List<int[]> prompts = new TurnPrompts(TEMPLATE).of(t);
        assertEquals(2, prompts.size());
        assertArrayEquals(TEMPLATE.prompt(PROMPT, List.of()), prompts.get(0));
        List<Message> second = new ArrayList<>(PROMPT);
        second.add(Message.assistant(t.turns().get(0).text()));
        second.add(Message.user(t.turns().get(1).text()));
        assertArrayEquals(TEMPLATE.prompt(second, List.of()), prompts.get(1));
        // A compressed turn saw only its context.
        List<Message> context = List.of(Message.system("You compute."), Message.user("(earlier turns dropped) 42"));
        Trajectory compressed = new Trajectory("c", "g", "t", PROMPT, List.of(assistant(0, "42", 2, FinishReason.STOP, context)), "42",
                StopReason.FINAL_ANSWER, null, null, null);
        assertArrayEquals(TEMPLATE.prompt(context, List.of()), new TurnPrompts(TEMPLATE).of(compressed).get(0));
    }

    @Test
    void everyAssistantTurnTrainsWithItsEpisodesGroupRelativeAdvantage() {
        List<Trajectory> g = List.of(episode("a", 1, 2, FinishReason.STOP), episode("b", 0, 2, FinishReason.STOP),
                episode("c", 0, 2, FinishReason.STOP), episode("d", 1, 2, FinishReason.STOP));
        RolloutGroups.Batch b = groups(false, false, 0).samples(List.of(g));
        assertEquals(8, b.samples().size(), "two assistant turns in each of four episodes");
        assertEquals(0.8658754, b.samples().get(0).advantage(), 1e-6);
        assertEquals(0.8658754, b.samples().get(1).advantage(), 1e-6, "both turns of an episode share its advantage");
        assertEquals(-0.8658754, b.samples().get(2).advantage(), 1e-6);
        assertArrayEquals(new int[] {100, 101, 102}, trainedIds(b.samples().get(0)), "the sampled ids, not re-tokenised text");
        assertEquals(0.5, b.meanReward(), 1e-9);
    }

    private static int[] trainedIds(RlSample s) {
        return java.util.stream.IntStream.range(0, s.length()).filter(j -> s.trained()[j] == 1).map(j -> s.ids()[j]).toArray();
    }

    @Test
    void turnsThatExtendEachOtherShareOneSampleWithEveryCompletionTrained() {
        // Completion ids that are exactly what the template renders: the second prompt extends the first row.
        BpeTokenizer tok = TEMPLATE.tokenizer();
        String call = "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>";
        int[] first = concat(tok.encode(call), new int[] {tok.imEndId()});
        int[] second = concat(tok.encode("42"), new int[] {tok.imEndId()});
        List<Turn> turns = List.of(
                Turn.assistant(0, new Completion(call, List.of(), first, new float[first.length], FinishReason.STOP, 0, 10, first.length),
                        List.of(), List.of(), null, null),
                Turn.observation(1, Role.USER, "<tool_response>\n42\n</tool_response>", List.of(), null),
                Turn.assistant(2, new Completion("42", List.of(), second, new float[second.length], FinishReason.STOP, 0, 10, second.length),
                        List.of(), List.of(), null, null));
        Trajectory a = new Trajectory("a", "g", "t", PROMPT, turns, "42", StopReason.FINAL_ANSWER, null, null,
                new RewardBreakdown(Map.of(), 1));
        Trajectory b = new Trajectory("b", "g", "t", PROMPT, turns, "42", StopReason.FINAL_ANSWER, null, null,
                new RewardBreakdown(Map.of(), 0));
        RolloutGroups.Batch batch = groups(false, false, 0).samples(List.of(List.of(a, b)));
        assertEquals(2, batch.samples().size(), "one sample per episode, not per turn");
        RlSample s = batch.samples().get(0);
        assertArrayEquals(concat(first, second), trainedIds(s), "both completions trained, nothing else");
        List<int[]> prompts = new TurnPrompts(TEMPLATE).of(a);
        assertArrayEquals(prompts.get(1), java.util.Arrays.copyOf(s.ids(), prompts.get(1).length), "the second prompt is inside the row");
        assertEquals(prompts.get(1).length + second.length, s.length());
    }

    private static int[] concat(int[] x, int[] y) {
        int[] out = java.util.Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }

    @Test
    void dynamicSamplingDropsGroupsThatAllScoredTheSame() {
        List<Trajectory> flat = List.of(episode("a", 1, 2, FinishReason.STOP), episode("b", 1, 2, FinishReason.STOP));
        List<Trajectory> mixed = List.of(episode("c", 1, 2, FinishReason.STOP), episode("d", 0, 2, FinishReason.STOP));
        RolloutGroups.Batch on = groups(false, true, 0).samples(List.of(flat, mixed));
        assertEquals(1, on.groupsKept());
        assertEquals(1, on.groupsDropped());
        assertEquals(4, on.samples().size());
        RolloutGroups.Batch off = groups(false, false, 0).samples(List.of(flat, mixed));
        assertEquals(8, off.samples().size());
        assertEquals(0, off.samples().get(0).advantage(), 1e-12, "kept, with nothing to teach");
    }

    @Test
    void aGroupHoldingAnInfrastructureFailureOrAnUnscoredEpisodeIsDroppedWholeNeverTrainedAsZero() {
        List<Trajectory> good = List.of(episode("a", 1, 2, FinishReason.STOP), episode("b", 0, 2, FinishReason.STOP));
        Trajectory crashed = episode("c", 1, 2, FinishReason.STOP).failedBy(dev.agentswarm.core.protocol.InfraFailure.POLICY_UNAVAILABLE,
                "connection refused");
        Trajectory unscored = episode("d", 1, 2, FinishReason.STOP).withReward(null);
        List<Trajectory> withFailure = List.of(episode("e", 1, 2, FinishReason.STOP), crashed);
        List<Trajectory> withUnscored = List.of(episode("f", 1, 2, FinishReason.STOP), unscored);
        RolloutGroups.Batch b = groups(false, false, 0).samples(List.of(good, withFailure, withUnscored));
        assertEquals(1, b.groupsKept());
        assertEquals(2, b.groupsUnscored());
        assertEquals(4, b.samples().size(), "only the whole good group's turns");
        assertEquals(0.5, b.meanReward(), 1e-12, "the dropped groups do not count in the mean either");
        // Before, the failed one counted as 0: its mate got a positive advantage it did not earn, and the kept group's numbers moved.
        RolloutGroups.Batch alone = groups(false, false, 0).samples(List.of(good));
        for (int i = 0; i < b.samples().size(); i++) {
            assertEquals(alone.samples().get(i).advantage(), b.samples().get(i).advantage(), 1e-12, "as if the others were never there");
        }
        assertThrows(IllegalArgumentException.class, () -> groups(false, false, 0).shapedReward(crashed));
    }

    @Test
    void truncatedTurnsCanBeMaskedAndOverlongOnesPenalised() {
        List<Trajectory> g = List.of(episode("a", 1, 10, FinishReason.LENGTH), episode("b", 1, 2, FinishReason.STOP));
        RolloutGroups.Batch masked = groups(true, false, 0).samples(List.of(g));
        assertEquals(1, masked.turnsMasked());
        assertEquals(3, masked.samples().size());
        // max-tokens 10, buffer 4: 10 tokens is at the limit, penalty −1; 3 tokens is below the buffer.
        RolloutGroups penalised = groups(false, false, 4);
        assertEquals(0.0, penalised.shapedReward(g.get(0)), 1e-9);
        assertEquals(1.0, penalised.shapedReward(g.get(1)), 1e-9);
        RolloutGroups.Batch b = penalised.samples(List.of(g));
        assertEquals(-0.7070, b.samples().get(0).advantage(), 1e-3, "the overlong episode now ranks below the short one");
    }

    @Test
    void aTurnWhoseLogProbsDoNotMatchItsTokensIsRefused() {
        Turn bad = new Turn(0, Role.ASSISTANT, "x", new int[] {1, 2}, new float[] {-1f}, new byte[] {1, 1}, 0, null, null, null,
                FinishReason.STOP, 0, null, null);
        Trajectory t = new Trajectory("bad", "g", "t", PROMPT, List.of(bad), "x", StopReason.FINAL_ANSWER, null, null,
                new RewardBreakdown(Map.of(), 1));
        Trajectory ok = episode("ok", 0, 2, FinishReason.STOP);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> groups(false, false, 0).samples(List.of(List.of(t, ok))));
        assertEquals("episode bad, turn 0: 1 log-probs for 2 tokens", e.getMessage());
    }
}
