package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.testkit.DurableSwarmScenario;
import dev.agentswarm.testkit.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real thing: two {@code swarm node --roles orchestrator,worker} JVMs on one PostgreSQL journal, a
 * {@code swarm run --join} JVM that starts a swarm on them; the JVM that runs the swarm is killed with
 * SIGKILL mid-swarm. The swarm goes on on the other node by itself, the client prints the uninterrupted
 * answer, and no sub-agent whose answer was journaled before the kill starts again.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SwarmNodeKillTest {

    private static final Pattern RUNS_ON = Pattern.compile("swarm (\\S+) runs on (\\S+)");

    @Test
    void theSwarmsNodeKilledTheSwarmGoesOnElsewhereAndTheClientGetsItsAnswer(@TempDir Path dir) throws Exception {
        assumeTrue(PostgresServer.available() || PostgresServer.required(), "PostgreSQL is not installed (bin/test installs it)");
        Path script = dir.resolve("swarm.json");
        Files.writeString(script, ResumeCliTest.script());
        try (PostgresServer db = PostgresServer.start()) {
            Path pg = dir.resolve("journal.conf");
            Files.writeString(pg, db.journalConfig()
                    + "agentswarm.swarm.max-parallel = 2\n");
            List<String> jvm = List.of("-Xmx384m", "-XX:+UseSerialGC");
            List<NodeProcess> nodes = new ArrayList<>();
            Process client = null;
            try {
                // Sub-agents answer after 700 ms a turn, two at a time: the swarm takes seconds, the kill lands mid-round.
                List<String> common = List.of("--roles", "orchestrator,worker", "--config", pg.toString(), "--script", script.toString(),
                        "--latency-ms", "700");
                NodeProcess a = NodeProcess.start(jvm, concat(common, "--port", Integer.toString(freePort()), "--data-dir",
                        dir.resolve("a").toString()), null);
                nodes.add(a);
                String seed = a.awaitUp(Duration.ofSeconds(90));
                NodeProcess b = NodeProcess.start(jvm, concat(common, "--seed", seed, "--data-dir", dir.resolve("b").toString()), null);
                nodes.add(b);
                String second = b.awaitUp(Duration.ofSeconds(90));

                Path out = dir.resolve("client.json");
                Path err = dir.resolve("client.log");
                client = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                        "-XX:+UseSerialGC", "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                        "run", "Add up the squares of 0 to 7", "--join", seed, "--config", pg.toString(), "--json")
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();

                Matcher started = null;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (started == null) {
                    Matcher m = RUNS_ON.matcher(Files.readString(err));
                    if (m.find()) started = m;
                    assertTrue(client.isAlive() || started != null, "the client ended early:\n" + Files.readString(err));
                    assertTrue(System.nanoTime() < until, "no node took the swarm:\n" + Files.readString(err) + "\nnode a:\n"
                            + String.join("\n", a.output()) + "\nnode b:\n" + String.join("\n", b.output()));
                    Thread.sleep(50);
                }
                String runId = started.group(1);
                boolean onA = started.group(2).equals(seed);
                NodeProcess host = onA ? a : b;
                Path hostTrace = dir.resolve(onA ? "a" : "b").resolve("swarms").resolve(runId).resolve("trace.jsonl");
                while (answered(hostTrace).size() < 3) {
                    assertTrue(client.isAlive(), "the swarm ended before its node was killed:\n" + Files.readString(err));
                    assertTrue(System.nanoTime() < until, "no three answers:\n" + Files.readString(err));
                    Thread.sleep(20);
                }
                long killedAt = System.nanoTime();
                host.kill(); // SIGKILL
                Set<String> before = journaledAnswers(pg, runId);
                assertTrue(!before.isEmpty() && before.size() < 8, "killed mid-swarm: " + before);

                while (!Files.readString(err).contains("goes on on ") && client.isAlive()) Thread.sleep(20);
                double movedAfter = (System.nanoTime() - killedAt) / 1e9;
                assertTrue(client.waitFor(200, TimeUnit.SECONDS), "the client got no answer:\n" + Files.readString(err));
                System.out.printf("the swarm's node killed with SIGKILL: going on on the other node %.1f s later, answered %.1f s after"
                        + " the kill%n", movedAfter, (System.nanoTime() - killedAt) / 1e9);
                assertEquals(0, client.exitValue(), Files.readString(err));
                List<String> printed = Files.readAllLines(out);
                JsonNode r = Json.parse(printed.get(printed.size() - 1)); // the report's figures, after its lines
                assertEquals("140", r.path("answer").asText(), r.toString());
                String other = onA ? second : seed;
                assertEquals(List.of(started.group(2), other), List.of(r.path("nodes").get(0).asText(), r.path("nodes").get(1).asText()),
                        "it ran on the killed node, then on the other: " + r);
                assertEquals(other, r.path("finished_on").asText());

                Path otherTrace = dir.resolve(onA ? "b" : "a").resolve("swarms").resolve(runId).resolve("trace.jsonl");
                List<JsonNode> events = SwarmTrace.read(otherTrace);
                assertTrue(events.stream().anyMatch(e -> e.path("kind").asText().equals("swarm_resumed")), "the other node resumed it");
                Set<String> startedAgain = new TreeSet<>();
                for (JsonNode e : events) {
                    if (e.path("kind").asText().equals("agent_started")) startedAgain.add(e.path("agent").asText());
                }
                for (String agent : before) assertFalse(startedAgain.contains(agent), agent + " had answered: not run again " + startedAgain);
            } finally {
                if (client != null) {
                    client.destroyForcibly();
                    client.waitFor(30, TimeUnit.SECONDS);
                }
                for (NodeProcess n : nodes) n.close();
            }
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    private static Set<String> answered(Path trace) {
        Set<String> done = new TreeSet<>();
        if (!Files.exists(trace)) return done;
        List<JsonNode> events;
        try {
            events = SwarmTrace.read(trace);
        } catch (RuntimeException e) {
            return done; // a line half written at this instant
        }
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals("agent_finished") && e.path("state").asText().equals("done")
                    && e.path("agent").asText().startsWith("root/")) {
                done.add(e.path("agent").asText());
            }
        }
        return done;
    }

    /** The sub-agents whose answers the journal holds, read with a local actor system's serialization. */
    private static Set<String> journaledAnswers(Path journalConf, String runId) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(ConfigFactory.parseFile(journalConf.toFile()))
                .withFallback(SwarmNode.loadConfig(null)).resolve();
        ActorTestKit kit = ActorTestKit.create("read-journal", cfg);
        try (Connection c = JournalDatabase.connect(cfg)) {
            List<SwarmEvent> events = SwarmJournals.events(c, SwarmJournal.persistenceId(runId + ":root").id(),
                    SerializationExtension.get(kit.system().classicSystem()));
            return DurableSwarmScenario.doneAgents(events);
        } finally {
            kit.shutdownTestKit();
        }
    }
}
