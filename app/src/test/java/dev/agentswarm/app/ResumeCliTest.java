package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.RoundState;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code swarm run} in its own JVM, killed with SIGKILL mid-swarm; {@code swarm run --resume} finishes it
 * from the journal in the run folder without running again any sub-agent that had answered.
 */
class ResumeCliTest {

    private static final int N = 8;

    /** root plans N sub-agents; s_i computes i * i; root answers with the sum of squares. */
    static String script() {
        StringBuilder plan = new StringBuilder();
        StringBuilder agents = new StringBuilder();
        for (int i = 0; i < N; i++) {
            if (i > 0) plan.append(", ");
            plan.append("{\\\"id\\\": \\\"s").append(i).append("\\\", \\\"goal\\\": \\\"").append(i).append(" * ").append(i)
                    .append("\\\", \\\"tools\\\": [\\\"calculator\\\"]}");
            agents.append(",\n  \"root/s").append(i).append("\": [\"<tool_call>{\\\"name\\\": \\\"calculator\\\", \\\"arguments\\\": ")
                    .append("{\\\"expression\\\": \\\"").append(i).append(" * ").append(i).append("\\\"}}</tool_call>\", \"")
                    .append(i * i).append("\"]");
        }
        int sum = 0;
        for (int i = 0; i < N; i++) sum += i * i;
        return "{\"agents\": {\n  \"root\": [\"<tool_call>{\\\"name\\\": \\\"spawn_subagents\\\", \\\"arguments\\\": {\\\"subtasks\\\": ["
                + plan + "]}}</tool_call>\", \"<tool_call>{\\\"name\\\": \\\"finish\\\", \\\"arguments\\\": {\\\"answer\\\": \\\"" + sum
                + "\\\"}}</tool_call>\"]" + agents + "\n}}";
    }

    private static List<JsonNode> trace(Path run) {
        try {
            return Files.exists(run.resolve("trace.jsonl")) ? SwarmTrace.read(run.resolve("trace.jsonl")) : List.of();
        } catch (RuntimeException e) {
            return List.of(); // a line half written at this instant
        }
    }

    private static Set<String> answered(List<JsonNode> events) {
        Set<String> done = new TreeSet<>();
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals("agent_finished") && e.path("state").asText().equals("done")
                    && e.path("agent").asText().startsWith("root/")) {
                done.add(e.path("agent").asText());
            }
        }
        return done;
    }

    /** The sub-agents whose answers the run's journal holds, read as a new process would. */
    private static Set<String> journaledAnswers(Path run) {
        Config cfg = JournalDatabase.settings(ConfigFactory.parseString("pekko.actor.provider = local")
                .withFallback(SwarmNode.loadConfig(null)).resolve(), run);
        ActorTestKit kit = ActorTestKit.create("read-journal", cfg);
        try {
            TestProbe<SwarmJournal.Reply> probe = kit.createTestProbe();
            kit.spawn(SwarmJournal.create(SwarmRun.RUN_ID + ":root", probe.getRef()));
            SwarmLedger ledger = probe.expectMessageClass(SwarmJournal.Ready.class, Duration.ofSeconds(30)).ledger();
            Set<String> done = new TreeSet<>();
            for (SwarmLedger.Round r : ledger.rounds()) {
                r.state().statuses().forEach((id, st) -> {
                    if (st.state() == RoundState.State.DONE) done.add(r.agents().get(id));
                });
            }
            return done;
        } finally {
            kit.shutdownTestKit(); // closes the database, so the resumed run can open it
        }
    }

    @Test
    void aSwarmKilledMidRunIsResumedFromItsJournalWithoutRunningAnsweredSubAgentsAgain(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, script());
        Path run = dir.resolve("run");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
                "Add up the squares of 0 to 7", "--script", script.toString(), "--latency-ms", "700", "--max-parallel", "2",
                "--run-dir", run.toString(), "--json"));
        Process swarm = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("first.log").toFile()).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (answered(trace(run)).size() < 3) {
                assertTrue(swarm.isAlive(), "the swarm ended before it was killed:\n" + Files.readString(dir.resolve("first.log")));
                assertTrue(System.nanoTime() < until, "no three answers within 90 s:\n" + Files.readString(dir.resolve("first.log")));
                Thread.sleep(20);
            }
            JsonNode listed = CliTest.swarm("runs", "--dir", dir.toString(), "--json").json().path("swarms").get(0);
            assertEquals("running", listed.path("state").asText(), "its process holds the journal: " + listed);
        } finally {
            swarm.destroyForcibly(); // SIGKILL: no shutdown hook, no journal flush
            swarm.waitFor(30, TimeUnit.SECONDS);
        }
        Set<String> before = journaledAnswers(run);
        assertTrue(!before.isEmpty() && before.size() < N, "killed mid-swarm: " + before);
        // The trace may show an answer or two that the journal had not written yet (it writes behind): those run again.
        assertTrue(answered(trace(run)).containsAll(before), "the journal holds no answer the trace lacks");

        JsonNode dead = CliTest.swarm("runs", "--dir", dir.toString(), "--json").json().path("swarms").get(0);
        assertEquals("resumable", dead.path("state").asText(), dead.toString());
        assertEquals(before.size(), dead.path("answered").asInt(), dead.toString());
        assertEquals("Add up the squares of 0 to 7", dead.path("task").asText());

        CliTest.Result resumed = CliTest.swarm("run", "--resume", run.toString(), "--script", script.toString(), "--json");
        assertEquals(0, resumed.exit(), resumed.err() + resumed.out());
        JsonNode r = resumed.json();
        assertEquals("140", r.path("answer").asText(), r.toString());

        List<JsonNode> events = trace(run);
        int resumedAt = -1;
        for (int i = 0; i < events.size(); i++) if (events.get(i).path("kind").asText().equals("swarm_resumed")) resumedAt = i;
        assertTrue(resumedAt > 0, "the trace shows the resume after the first run's events");
        Set<String> startedAgain = new TreeSet<>();
        for (JsonNode e : events.subList(resumedAt, events.size())) {
            if (e.path("kind").asText().equals("agent_started")) startedAgain.add(e.path("agent").asText());
        }
        for (String agent : before) assertFalse(startedAgain.contains(agent), agent + " had answered: not run again " + startedAgain);
        assertEquals(N, answered(events).size(), "every sub-agent answered, over the two runs");
        Set<String> kept = new TreeSet<>();
        for (Trajectory t : TrajectoryExport.read(run.resolve("trajectories.jsonl"))) kept.add(Orchestrator.agentOf(t.episodeId()));
        Set<String> all = new TreeSet<>();
        for (int i = 0; i < N; i++) all.add("root/s" + i);
        assertEquals(all, kept, "every sub-agent's trajectory is in the run's trajectory file, over the two runs");
        assertTrue(Files.exists(run.resolve("journal.mv.db")));
        JsonNode finished = CliTest.swarm("runs", "--dir", dir.toString(), "--json").json().path("swarms").get(0);
        assertEquals("finished", finished.path("state").asText(), finished.toString());
        assertEquals("140", finished.path("answer").asText());
        assertEquals(N, finished.path("answered").asInt());

        CliTest.Result again = CliTest.swarm("run", "--resume", run.toString(), "--script", script.toString(), "--json");
        assertEquals(0, again.exit(), again.err());
        assertEquals("140", again.json().path("answer").asText(), "a finished swarm answers from its journal");
    }

    @Test
    void runsOnOneSharedPostgresDatabaseKeepAJournalEach(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.agentswarm.testkit.PostgresServer.available()
                || dev.agentswarm.testkit.PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, SwarmCliTest.SCRIPT);
        try (dev.agentswarm.testkit.PostgresServer db = dev.agentswarm.testkit.PostgresServer.start()) {
            Path conf = dir.resolve("journal.conf");
            Files.writeString(conf, db.journalConfig());
            for (String run : List.of("first", "second")) {
                CliTest.Result r = CliTest.swarm("run", "What is (2 + 3) + 4 * 5?", "--script", script.toString(), "--config",
                        conf.toString(), "--run-dir", dir.resolve(run).toString(), "--json");
                assertEquals(0, r.exit(), r.err());
                assertEquals("25", r.json().path("answer").asText());
                // Ran, not answered from another run's journal: its sub-agents took turns now.
                assertTrue(r.json().path("metrics").path("wall_ms").asDouble() > 0, run + " ran its swarm: " + r.json());
            }
            assertTrue(Files.exists(dir.resolve("first").resolve("run-id")));
            assertFalse(Files.readString(dir.resolve("first").resolve("run-id")).equals(Files.readString(dir.resolve("second").resolve("run-id"))),
                    "each run folder has its own run id");
            JsonNode listed = CliTest.swarm("runs", "--config", conf.toString(), "--json").json().path("swarms");
            assertEquals(2, listed.size(), "two swarms in the database: " + listed);
            CliTest.Result again = CliTest.swarm("run", "--resume", dir.resolve("first").toString(), "--script", script.toString(),
                    "--config", conf.toString(), "--json");
            assertEquals(0, again.exit(), again.err());
            assertEquals("25", again.json().path("answer").asText(), "the first run's swarm answers from its own journal");
            assertEquals(0.0, again.json().path("metrics").path("wall_ms").asDouble(), "nothing ran again");
            CliTest.Result noId = CliTest.swarm("run", "--resume", dir.resolve("first").toString(), "--script", script.toString(),
                    "--json");
            assertEquals(2, noId.exit(), "an H2 resume of a folder journaled on PostgreSQL: " + noId.err());
        }
    }

    @Test
    void resumingAFolderWithoutAJournalSaysSo(@TempDir Path dir) throws IOException {
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, SwarmCliTest.SCRIPT);
        Path run = dir.resolve("run");
        CliTest.Result first = CliTest.swarm("run", "What is (2 + 3) + 4 * 5?", "--script", script.toString(), "--run-dir", run.toString(),
                "--no-journal");
        assertEquals(0, first.exit(), first.err());
        CliTest.Result resumed = CliTest.swarm("run", "--resume", run.toString(), "--script", script.toString());
        assertEquals(2, resumed.exit());
        assertTrue(resumed.err().contains("has no journal (journal.mv.db)"), resumed.err());
        CliTest.Result noFolder = CliTest.swarm("run", "--resume", dir.resolve("nowhere").toString());
        assertTrue(noFolder.err().contains("--resume: no run folder at"), noFolder.err());
    }
}
