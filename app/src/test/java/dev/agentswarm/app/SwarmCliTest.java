package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm run: a scripted swarm end to end, its run folder, its replay, and bad input. */
class SwarmCliTest {

    /** root plans a and b in parallel and c on both; each sub-agent computes with the calculator; root finishes. */
    static final String SCRIPT = """
            {"agents": {
              "root": [
                "<tool_call>{\\"name\\": \\"spawn_subagents\\", \\"arguments\\": {\\"subtasks\\": [{\\"id\\": \\"a\\", \\"goal\\": \\"2 + 3\\", \\"tools\\": [\\"calculator\\"]}, {\\"id\\": \\"b\\", \\"goal\\": \\"4 * 5\\", \\"tools\\": [\\"calculator\\"]}, {\\"id\\": \\"c\\", \\"goal\\": \\"add them\\", \\"tools\\": [\\"calculator\\"], \\"depends_on\\": [\\"a\\", \\"b\\"]}]}}</tool_call>",
                "<tool_call>{\\"name\\": \\"finish\\", \\"arguments\\": {\\"answer\\": \\"25\\"}}</tool_call>"],
              "root/a": ["<tool_call>{\\"name\\": \\"calculator\\", \\"arguments\\": {\\"expression\\": \\"2 + 3\\"}}</tool_call>", "5"],
              "root/b": ["<tool_call>{\\"name\\": \\"calculator\\", \\"arguments\\": {\\"expression\\": \\"4 * 5\\"}}</tool_call>", "20"],
              "root/c": ["<tool_call>{\\"name\\": \\"calculator\\", \\"arguments\\": {\\"expression\\": \\"5 + 20\\"}}</tool_call>", "25"]
            }}
            """;

    @Test
    void aScriptedSwarmRunsWritesItsTraceAndPageAndReplaysToTheSameTrace(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, SCRIPT);
        Path run = dir.resolve("run");
        CliTest.Result r = CliTest.swarm("run", "What is (2 + 3) + 4 * 5?", "--script", script.toString(), "--run-dir", run.toString(), "--json");
        assertEquals(0, r.exit(), r.out() + r.err());
        JsonNode j = r.json();
        assertEquals("25", j.get("answer").asText());
        assertEquals(0, j.get("missing").size());
        assertEquals(3, j.get("metrics").get("subagents").asInt());
        assertEquals(6, j.get("metrics").get("critical_steps").asInt());
        assertEquals(8, j.get("metrics").get("total_steps").asInt());
        assertEquals(1.0, j.get("reward").get("finish").asDouble(), "every spawned sub-agent answered");
        assertTrue(r.out().contains("├─ a  general  done"), "the final tree: " + r.out());
        for (String f : new String[] {"trace.jsonl", "trace.html", "recording.jsonl"}) assertTrue(Files.isRegularFile(run.resolve(f)), f);
        String html = Files.readString(run.resolve("trace.html"));
        for (String agent : new String[] {"root", "root/a", "root/b", "root/c"}) assertTrue(html.contains("data-agent=\"" + agent + "\""), agent);

        CliTest.Result replay = CliTest.swarm("run", "--replay", run.toString(), "--run-dir", dir.resolve("again").toString(), "--json");
        assertEquals(0, replay.exit(), replay.out() + replay.err());
        assertTrue(replay.json().get("replay_same_trace").asBoolean(), replay.out());
        assertEquals("25", replay.json().get("answer").asText());
    }

    @Test
    void aTamperedRecordingReplaysToADifferentTraceAndSaysWhere(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, SCRIPT);
        Path run = dir.resolve("run");
        assertEquals(0, CliTest.swarm("run", "What is (2 + 3) + 4 * 5?", "--script", script.toString(), "--run-dir", run.toString()).exit());
        Path rec = run.resolve("recording.jsonl");
        Files.writeString(rec, Files.readString(rec).replace("\"result\":\"20\"", "\"result\":\"21\""));
        CliTest.Result replay = CliTest.swarm("run", "--replay", run.toString(), "--run-dir", dir.resolve("again").toString(), "--json");
        assertEquals(1, replay.exit(), replay.out() + replay.err());
        assertFalse(replay.json().get("replay_same_trace").asBoolean());
        assertTrue(replay.out().contains("the trace differs from"), replay.out());
    }

    @Test
    void badSwarmInputGetsOneClearLine(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, SCRIPT);
        CliTest.Result noTask = CliTest.swarm("run", "--script", script.toString());
        assertEquals(2, noTask.exit());
        assertTrue(noTask.err().contains("give the TASK"), noTask.err());

        CliTest.Result badTool = CliTest.swarm("run", "x", "--script", script.toString(), "--tools", "calculator,teleport");
        assertEquals(2, badTool.exit());
        assertTrue(badTool.err().contains("teleport"), badTool.err());

        Path badAgents = dir.resolve("bad.json");
        Files.writeString(badAgents, "{\"agents\": {\"root\": []}}");
        CliTest.Result empty = CliTest.swarm("run", "x", "--script", badAgents.toString());
        assertEquals(2, empty.exit());
        assertTrue(empty.err().contains("agent root needs a non-empty list of replies"), empty.err());

        CliTest.Result noRecording = CliTest.swarm("run", "--replay", dir.resolve("nowhere").toString());
        assertEquals(2, noRecording.exit());
        assertTrue(noRecording.err().contains("nowhere"), noRecording.err());
    }

    @Test
    void clusterSwarmOptionsThatDoNotGoTogetherAreRefused(@TempDir Path dir) {
        CliTest.Result attachAlone = CliTest.swarm("run", "--attach", "swarm-1");
        assertEquals(2, attachAlone.exit());
        assertTrue(attachAlone.err().contains("--attach follows a swarm of a cluster: give --join SEED"), attachAlone.err());
        CliTest.Result resumeInCluster = CliTest.swarm("run", "--resume", dir.toString(), "--join", "pekko://swarm@127.0.0.1:1");
        assertEquals(2, resumeInCluster.exit());
        assertTrue(resumeInCluster.err().contains("a cluster's swarm goes on by itself"), resumeInCluster.err());
        CliTest.Result both = CliTest.swarm("run", "a task", "--attach", "swarm-1", "--join", "pekko://swarm@127.0.0.1:1");
        assertEquals(2, both.exit());
        assertTrue(both.err().contains("--attach follows a swarm already started: give no TASK"), both.err());
    }

    @Test
    void aSmallSwarmBenchmarkChecksEveryAnswerAndReportsTheFigures() throws Exception {
        CliTest.Result b = CliTest.swarm("bench", "swarm", "--subagents", "8", "--turns", "3", "--tool-ms", "5", "--warmup", "1", "--reps", "3", "--json");
        assertEquals(0, b.exit(), b.out() + b.err());
        JsonNode j = b.json();
        for (String key : new String[] {"wall_over_ideal", "wall_over_serial", "overhead_ms_per_subagent", "peak_heap_bytes"}) {
            assertTrue(j.has(key), key + " in " + j);
        }
        assertTrue(j.get("wall_over_ideal").asDouble() >= 1.0, "no swarm beats its critical path: " + j);
        assertEquals(15.0, j.get("ideal_ms").asDouble());
        assertEquals(120.0, j.get("serial_ms").asDouble());
        assertEquals(1 + 4 + 1, j.get("critical_steps").asInt(), "plan, a sub-agent's 3 tool turns and its answer, finish");
        assertTrue(j.get("plan_ms").asDouble() <= j.get("answered_ms").asDouble());
    }

    @Test
    void theResumeBenchmarkMeasuresTheJournalsWriteRateOnH2() throws Exception {
        CliTest.Result b = CliTest.swarm("bench", "resume", "--skip", "resume,postgres", "--swarms", "2", "--subagents", "5",
                "--max-batch", "8", "--json");
        assertEquals(0, b.exit(), b.out() + b.err());
        JsonNode j = b.json();
        // Each swarm: its start, the root's turn, the plan, 5 starts, 5 x 10 turns, 5 answers, the round's end and the swarm's.
        assertEquals(2 * (3 + 5 + 50 + 5 + 2), j.get("throughput_events").asInt(), j.toString());
        assertTrue(j.get("events_per_s_h2").asLong() > 0, j.toString());
        assertEquals(2, CliTest.swarm("bench", "resume", "--subagents", "4", "--answered", "4").exit(), "all answered: nothing to resume");
    }

    @Test
    void aSearchSubAgentSearchesTheSuitesWorldWithItsTool(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("search.json");
        Files.writeString(script, """
                {"agents": {
                  "root": ["<tool_call>{\\"name\\": \\"spawn_subagents\\", \\"arguments\\": {\\"subtasks\\": [{\\"id\\": \\"s\\", \\"goal\\": \\"Look it up\\", \\"mode\\": \\"search\\"}]}}</tool_call>",
                           "<tool_call>{\\"name\\": \\"finish\\", \\"arguments\\": {\\"answer\\": \\"looked\\"}}</tool_call>"],
                  "root/s": ["<tool_call>{\\"name\\": \\"search\\", \\"arguments\\": {\\"query\\": \\"city\\"}}</tool_call>", "found"]
                }}
                """);
        Path run = dir.resolve("run");
        CliTest.Result r = CliTest.swarm("run", "Look it up", "--script", script.toString(), "--suite", "multihop", "--run-dir", run.toString(), "--json");
        assertEquals(0, r.exit(), r.out() + r.err());
        String trace = Files.readString(run.resolve("trace.jsonl"));
        assertTrue(trace.contains("You are a search agent in a swarm"), "the search mode's prompt");
        JsonNode toolTurn = null;
        for (String line : trace.split("\n")) {
            JsonNode e = dev.agentswarm.core.json.Json.parse(line);
            // Hermes feeds tool results back in a user turn, as <tool_response>
            if (e.path("agent").asText().equals("root/s") && e.path("content").asText().contains("<tool_response>")) toolTurn = e;
        }
        assertTrue(toolTurn != null && toolTurn.path("content").asText().contains("[") && !toolTurn.path("content").asText().contains("unknown tool"),
                "the search tool answered from the world: " + toolTurn);
    }
}
