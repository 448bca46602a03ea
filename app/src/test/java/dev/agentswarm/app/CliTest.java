package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The swarm command line, run in-process: exit codes, human output and the --json last line. */
class CliTest {

    record Result(int exit, String out, String err) {
        JsonNode json() throws Exception {
            String[] lines = out.strip().split("\n");
            return Json.parse(lines[lines.length - 1]);
        }
    }

    static Result swarm(String... args) {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute(args);
            return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void runRecordAndReplay(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.txt");
        Files.writeString(script, """
                <tool_call>
                {"name": "calculator", "arguments": {"expression": "(17 + 4) * 3 ^ 2"}}
                </tool_call>
                ---
                The answer is 189
                """);
        Path rec = dir.resolve("run.jsonl");
        Result run = swarm("run", "--single", "What is (17 + 4) * 3 ^ 2?", "--script", script.toString(), "--record", rec.toString(), "--json");
        assertEquals(0, run.exit(), run.err());
        JsonNode j = run.json();
        assertEquals("FINAL_ANSWER", j.get("stop_reason").asText());
        assertEquals("The answer is 189", j.get("final_answer").asText());
        assertEquals(1, j.get("tool_successes").asInt());
        assertTrue(run.out().contains("<tool_response>\\n189\\n</tool_response>"), run.out());

        Result replay = swarm("replay", rec.toString(), "--json");
        assertEquals(0, replay.exit(), replay.out() + replay.err());
        assertEquals(1, replay.json().get("matched").asInt());
        assertEquals(0, replay.json().get("mismatched").asInt());
    }

    @Test
    void replayOfATamperedRecordingReportsTheDifference(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("s.json");
        Files.writeString(script, "{\"replies\": [\"<tool_call>{\\\"name\\\": \\\"calculator\\\", \\\"arguments\\\": {\\\"expression\\\": \\\"2+2\\\"}}</tool_call>\", \"4\"]}");
        Path rec = dir.resolve("run.jsonl");
        assertEquals(0, swarm("run", "--single", "2+2?", "--script", script.toString(), "--record", rec.toString()).exit());
        String tampered = Files.readString(rec).replace("\"result\":\"4\"", "\"result\":\"5\"");
        Files.writeString(rec, tampered);
        Result replay = swarm("replay", rec.toString(), "--json");
        assertEquals(1, replay.exit());
        assertEquals(1, replay.json().get("mismatched").asInt());
        assertTrue(replay.out().contains("turn 1 differs"), replay.out());
    }

    @Test
    void demoReplaysTheShippedRunExactly() throws Exception {
        Result demo = swarm("demo", "--replay", "--json");
        assertEquals(0, demo.exit(), demo.out() + demo.err());
        assertTrue(demo.out().contains("REPLAY"), "the demo says it is a replay");
        JsonNode j = demo.json();
        assertEquals(0, j.get("replay_mismatches").asInt());
        assertEquals(24, j.get("episodes").asInt());
        assertEquals(1.0, j.get("accuracy").asDouble(), "the scripted agent corrects its mistakes and gets every answer");
        assertTrue(j.get("format_errors").asInt() > 0, "the demo shows self-correction");
    }

    @Test
    void badInputGetsOneClearLine(@TempDir Path dir) throws Exception {
        Result none = swarm("run", "x");
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("--endpoint URL --model NAME"), none.err());

        Result noModel = swarm("run", "x", "--endpoint", "http://127.0.0.1:9/v1");
        assertEquals(2, noModel.exit());
        assertTrue(noModel.err().contains("--model"), noModel.err());

        Path empty = dir.resolve("empty.json");
        Files.writeString(empty, "{\"answers\": []}");
        Result badScript = swarm("run", "x", "--script", empty.toString());
        assertEquals(2, badScript.exit());
        assertTrue(badScript.err().contains("replies"), badScript.err());

        Path ok = dir.resolve("ok.txt");
        Files.writeString(ok, "done");
        Result badTool = swarm("run", "--single", "x", "--script", ok.toString(), "--tools", "calculator,search");
        assertEquals(2, badTool.exit());
        assertTrue(badTool.err().contains("search"), badTool.err());

        Result unknownFormat = swarm("run", "x", "--script", empty.toString(), "--format", "xml");
        assertEquals(2, unknownFormat.exit());
        assertTrue(unknownFormat.err().contains("hermes"), "lists the known formats: " + unknownFormat.err());

        Result badFormat = swarm("run", "x", "--script", empty.toString().replace("empty.json", "nope.txt"));
        assertEquals(2, badFormat.exit());
        assertTrue(badFormat.err().contains("nope.txt"), badFormat.err());
    }

    @Test
    void versionAndHelp() throws Exception {
        Result v = swarm("version", "--json");
        assertEquals(0, v.exit());
        assertEquals("1.7.0", v.json().get("pekko").asText());
        for (String cmd : new String[] {"run", "replay", "demo", "bench", "version"}) {
            Result h = swarm(cmd, "--help");
            assertEquals(0, h.exit(), cmd);
        }
    }

    @Test
    void smallEpisodesBenchmarkChecksEveryAnswer() throws Exception {
        Result b = swarm("bench", "episodes", "--n", "3000", "--turns", "5", "--warmup", "0", "--heap-probe", "300", "--json");
        assertEquals(0, b.exit(), b.err());
        JsonNode j = b.json();
        assertEquals(0, j.get("lost_episodes").asInt());
        assertEquals(0, j.get("dead_letters").asInt());
        assertEquals(0, j.get("wrong_answers").asInt());
        assertTrue(j.get("episodes_per_s").asDouble() > 0);
        assertTrue(j.get("heap_bytes_per_episode").asLong() > 0);
        assertTrue(j.get("overhead_us_p50").asDouble() > 0);
    }

    @Test
    void searchBenchmarkTimesTheWorldAndSaysWhenMusiqueIsMissing() throws Exception {
        // The test's working directory is the module: ../shared/data is not there, so MuSiQue is skipped, by name.
        Result b = swarm("bench", "search", "--queries", "20", "--rounds", "1", "--json");
        assertEquals(0, b.exit(), b.err());
        JsonNode j = b.json();
        assertEquals(476, j.get("world_pages").asInt());
        assertTrue(j.get("world_search_us_p50").asDouble() > 0);
        assertTrue(j.get("world_search_per_s").asDouble() > 0);
        if (!j.has("musique_questions")) assertTrue(b.err().contains("musique skipped"), b.err());
        assertEquals(2, swarm("bench", "search", "--queries", "0").exit(), "bad arguments are refused as usage errors");
    }
}
