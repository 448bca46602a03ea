package dev.agentswarm.learner.rl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.learner.data.Conversation;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PreferencePairsTest {

    private static final BpeTokenizer TOKENIZER = BpeTokenizer.untrained();
    private static final ChatTemplate TEMPLATE = new ChatTemplate(TOKENIZER);
    private final PreferencePairs pairs = new PreferencePairs(TEMPLATE);

    @Test
    void trlFilesInBothFormsGiveThePromptAndEachAnswerWithItsEnd(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("prefs.jsonl");
        Files.writeString(file, "{\"prompt\": \"2+2?\", \"chosen\": \"4\", \"rejected\": \"Well, let me think... 4\"}\n\n"
                + "{\"prompt\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"Hi\"}],"
                + " \"chosen\": [{\"role\": \"assistant\", \"content\": \"Hello.\"}], \"rejected\": [{\"role\": \"assistant\", \"content\": \"Hey!!\"}]}\n");
        List<PreferencePair> p = pairs.load(file);
        assertEquals(2, p.size());
        assertArrayEquals(TEMPLATE.prompt(List.of(Message.user("2+2?")), List.of()), p.get(0).prompt());
        int[] four = TOKENIZER.encode("4");
        assertEquals(four.length + 1, p.get(0).chosen().length, "the answer and its <|im_end|>");
        assertEquals(TOKENIZER.imEndId(), p.get(0).chosen()[p.get(0).chosen().length - 1]);
        assertArrayEquals(TEMPLATE.prompt(List.of(Message.system("Be brief."), Message.user("Hi")), List.of()), p.get(1).prompt());
    }

    @Test
    void malformedLinesNameTheirLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, "{\"prompt\": \"a\", \"chosen\": \"b\", \"rejected\": \"c\"}\n{\"prompt\": \"a\", \"chosen\": \"b\"}\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> pairs.load(file)).getMessage().endsWith("bad.jsonl:2: no \"rejected\""));
        Files.writeString(file, "{\"prompt\": \"a\", \"chosen\": [{\"role\": \"robot\", \"content\": \"b\"}], \"rejected\": \"c\"}\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> pairs.load(file)).getMessage().contains("unknown role \"robot\""));
        Files.writeString(file, "not json\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> pairs.load(file)).getMessage().contains("bad.jsonl:1"));
    }

    private static Trajectory rollout(String task, String text, int[] ids, double reward, StopReason stop) {
        List<Message> prompt = List.of(Message.system("s"), Message.user(task));
        Turn t = Turn.assistant(0, new Completion(text, List.of(), ids, new float[ids.length], FinishReason.STOP, 0, 5, ids.length),
                List.of(), List.of(), null, null);
        return new Trajectory(task + text, task, task, prompt, List.of(t), text, stop, null, null, new RewardBreakdown(Map.of(), reward));
    }

    @Test
    void rolloutsOfOneTaskPairTheirBestWithTheirWorstWhenTheGapIsWideEnough() {
        List<Trajectory> wide = List.of(rollout("q1", "a", new int[] {1}, 0.2, StopReason.FINAL_ANSWER),
                rollout("q1", "b", new int[] {2}, 1.0, StopReason.FINAL_ANSWER), rollout("q1", "c", new int[] {3}, 0.5, StopReason.FINAL_ANSWER));
        List<Trajectory> narrow = List.of(rollout("q2", "a", new int[] {4}, 0.5, StopReason.FINAL_ANSWER),
                rollout("q2", "b", new int[] {5}, 0.6, StopReason.FINAL_ANSWER));
        List<PreferencePair> p = PreferencePairs.fromRollouts(List.of(wide, narrow), 0.3, new TurnPrompts(TEMPLATE));
        assertEquals(1, p.size(), "q2's gap of 0.1 is below 0.3");
        assertArrayEquals(new int[] {2}, p.get(0).chosen());
        assertArrayEquals(new int[] {1}, p.get(0).rejected());
        assertArrayEquals(TEMPLATE.prompt(wide.get(0).prompt(), List.of()), p.get(0).prompt());
    }

    @Test
    void rejectionSamplingKeepsAnsweredRolloutsAboveTheThresholdAFewPerTask() {
        List<Trajectory> r = List.of(rollout("q1", "a", new int[] {1}, 1.0, StopReason.FINAL_ANSWER),
                rollout("q1", "b", new int[] {1}, 1.0, StopReason.FINAL_ANSWER), rollout("q1", "c", new int[] {1}, 1.0, StopReason.FINAL_ANSWER),
                rollout("q2", "d", new int[] {1}, 0.4, StopReason.FINAL_ANSWER), rollout("q3", "e", new int[] {1}, 1.0, StopReason.MAX_TURNS));
        List<Conversation> kept = RejectionSampling.keep(r, 0.9, 2);
        assertEquals(2, kept.size(), "two of q1's three; q2 is below 0.9; q3 never answered");
        assertEquals("a", kept.get(0).messages().get(2).content());
    }
}
