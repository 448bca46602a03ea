package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.learner.rl.PreferencePair;
import dev.agentswarm.learner.rl.PreferencePairs;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm export: a run's trajectories as SFT messages and as TRL preference pairs that our own DPO loader reads back. */
class TrajectoryExportTest {

    private static Trajectory episode(String group, int k, String answer, double reward, StopReason stop) {
        Turn t = Turn.assistant(0, new Completion(answer, List.of(), new int[] {1, 2}, new float[] {-1, -1}, FinishReason.STOP, 0, 5, 2),
                List.of(), List.of(), null, null);
        return new Trajectory(group + "#" + k, group, group, List.of(Message.system("Be brief."), Message.user("2+2? " + group)), List.of(t),
                answer, stop, null, null, new RewardBreakdown(Map.of(), reward));
    }

    @Test
    void answeredEpisodesBecomeMessagesAndEachGroupsBestAndWorstAPair(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        List<Trajectory> all = List.of(episode("g1", 0, "4", 1.0, StopReason.FINAL_ANSWER),
                episode("g1", 1, "Hmm, let me think. 4", 0.4, StopReason.FINAL_ANSWER), episode("g1", 2, "5", 0.0, StopReason.FINAL_ANSWER),
                episode("g2", 0, "4", 1.0, StopReason.FINAL_ANSWER), episode("g2", 1, "4!", 0.95, StopReason.FINAL_ANSWER),
                episode("g3", 0, "...", 0.0, StopReason.MAX_TURNS));
        StringBuilder lines = new StringBuilder();
        for (Trajectory t : all) lines.append(Json.write(t)).append('\n');
        lines.append("{\"episodeId\": \"torn"); // the run died mid-write
        Files.writeString(file, lines.toString());

        CliTest.Result messages = CliTest.swarm("export", dir.toString(), "--format", "messages", "--min-reward", "0.5", "--json");
        assertEquals(0, messages.exit(), messages.err());
        assertEquals(6, messages.json().get("trajectories").asInt(), "the torn last line is skipped");
        List<String> m = Files.readAllLines(dir.resolve("export-messages.jsonl"));
        assertEquals(3, m.size(), "answered with reward >= 0.5: g1#0, g2#0, g2#1");
        JsonNode first = Json.parse(m.get(0)).get("messages");
        assertEquals("assistant", first.get(2).get("role").asText());
        assertEquals("4", first.get(2).get("content").asText());
        // Rejection sampling's cap: one episode of each task at most (g2 has two above the floor).
        CliTest.Result capped = CliTest.swarm("export", dir.toString(), "--format", "messages", "--min-reward", "0.5", "--per-task", "1",
                "--out", dir.resolve("rft.jsonl").toString(), "--json");
        assertEquals(0, capped.exit(), capped.err());
        assertEquals(2, capped.json().get("records").asInt(), "g1#0 and g2#0");
        CliTest.Result none = CliTest.swarm("export", dir.toString(), "--format", "messages", "--per-task", "0");
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("per-task must be >= 1"), none.err());

        Path pairsFile = dir.resolve("pairs.jsonl");
        CliTest.Result dpo = CliTest.swarm("export", dir.resolve("trajectories.jsonl").toString(), "--format", "trl-dpo", "--out",
                pairsFile.toString(), "--json");
        assertEquals(0, dpo.exit(), dpo.err());
        assertEquals(1, dpo.json().get("records").asInt(), "g2's gap of 0.05 is below 0.1; g3 never answered");
        JsonNode pair = Json.parse(Files.readAllLines(pairsFile).get(0));
        assertEquals("4", pair.get("chosen").get(0).get("content").asText());
        assertEquals("5", pair.get("rejected").get(0).get("content").asText());
        // Our own DPO loader reads the export back: the same pairs for a Java or a Python trainer.
        ChatTemplate template = new ChatTemplate(BpeTokenizer.untrained());
        List<PreferencePair> loaded = new PreferencePairs(template).load(pairsFile);
        assertEquals(1, loaded.size());
        assertArrayEquals(template.prompt(all.get(0).prompt(), List.of()), loaded.get(0).prompt());
    }

    @Test
    void aBadFormatOrACorruptFileIsRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trajectories.jsonl");
        Files.writeString(file, "{\"not\": \"a trajectory\"\n" + Json.write(episode("g", 0, "4", 1, StopReason.FINAL_ANSWER)) + "\n");
        CliTest.Result bad = CliTest.swarm("export", file.toString(), "--format", "trl-dpo");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("trajectories.jsonl:1: not a trajectory"), bad.err());
        CliTest.Result format = CliTest.swarm("export", file.toString(), "--format", "parquet");
        assertEquals(2, format.exit());
        assertTrue(format.err().contains("--format takes messages or trl-dpo"), format.err());
        assertThrows(IllegalArgumentException.class, () -> TrajectoryExport.read(file));
    }
}
