package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.SwarmEntity;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.testkit.DurableSwarmScenario;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A swarm of a cluster outlives its orchestrator's node: two orchestrator + worker nodes and a client's
 * job node in one JVM, sharing one journal database; the swarm's node crashes (its actor system ends
 * without leaving the cluster, as a killed process does) mid-round, the cluster downs it, sharding starts
 * the remembered swarm on the other node, it goes on from the journal, and the client that started it
 * gets the uninterrupted answer. No sub-agent whose answer was journaled runs again, nothing is
 * re-planned, and each sub-agent's answer is journaled once. The same on PostgreSQL, with node processes
 * killed by SIGKILL: {@link SwarmNodeKillTest}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SwarmFailoverTest {

    private static final String RUN = "failover-1";

    @Test
    void onASharedH2Database(@TempDir Path dir) throws Exception {
        // An in-memory H2 database outlives its connections (DB_CLOSE_DELAY=-1): every node of this JVM shares it.
        failover(dir, "agentswarm.persistence.database = h2\n"
                + "pekko-persistence-jdbc.shared-databases.slick.db.url = \"jdbc:h2:mem:failover-" + System.nanoTime()
                + ";DB_CLOSE_DELAY=-1\"\n");
    }

    /** A node of the test's cluster: crashes rather than leaves when its actor system ends; a dead node is downed in seconds. */
    static Config node(Path dir, String database, String roles) {
        return ConfigFactory.parseString("pekko.actor.serialize-messages = on\n"
                + "pekko.cluster.roles = [" + roles + "]\n"
                + "pekko.coordinated-shutdown.run-by-actor-system-terminate = off\n"
                + "pekko.cluster.run-coordinated-shutdown-when-down = off\n"
                + "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 2 s\n"
                + "pekko.cluster.split-brain-resolver.stable-after = 2 s\n"
                + "agentswarm.swarm.max-parallel = 4\n"
                + "agentswarm.node.swarms-dir = \"" + dir.resolve("swarms") + "\"\n"
                + database).withFallback(SwarmNode.loadConfig(null)).resolve();
    }

    private void failover(Path dir, String database) throws Exception {
        DurableSwarmScenario.Calls calls = new DurableSwarmScenario.Calls();
        Policy policy = ScriptedPolicy.texts(calls::answer).withLatency(Duration.ofMillis(60));
        EpisodeServices services = new EpisodeServices(policy, ToolRegistry.of(new FinishTool()).plus(calls.tool()));
        Config hostConfig = node(dir, database, "orchestrator, worker");
        List<SwarmNode> nodes = new ArrayList<>();
        try {
            SwarmNode a = SwarmNode.start(hostConfig, services, null);
            nodes.add(a);
            JournalDatabase.createSchema(a.system(), hostConfig);
            SwarmNode b = SwarmNode.start(hostConfig, services, a.address());
            nodes.add(b);
            SwarmNode client = SwarmNode.join(node(dir, database, "job"), a.address());
            nodes.add(client);
            client.awaitMembers(SwarmEntity.ROLE, 2, Duration.ofSeconds(30));

            List<SwarmEntity.Accepted> accepted = new CopyOnWriteArrayList<>();
            List<ObjectNode> progress = new CopyOnWriteArrayList<>();
            CompletableFuture<ClusterSwarms.Outcome> outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    return ClusterSwarms.run(client, RUN, DurableSwarmScenario.TASK, hostConfig, List.of("ledger"), progress::add,
                            accepted::add, Duration.ofSeconds(150));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            Serialization serialization = SerializationExtension.get(client.system().classicSystem());
            try (Connection reader = JournalDatabase.connect(hostConfig)) {
                // Mid-round: at least half the sub-agents answered, not all.
                long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (answered(journal(reader, serialization)) < DurableSwarmScenario.N / 2) {
                    assertTrue(System.nanoTime() < until, "the swarm never got half-way: " + accepted);
                    Thread.sleep(10);
                }
                assertEquals(1, accepted.size(), "one node took the swarm: " + accepted);
                SwarmNode host = a.address().toString().equals(accepted.get(0).node()) ? a : b;
                SwarmNode other = host == a ? b : a;

                calls.crashed.set(true);
                host.system().terminate(); // the node dies: its orchestrator, its workers and every episode on them
                host.system().getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
                List<SwarmEvent> atCrash = journal(reader, serialization);
                Set<String> doneBefore = DurableSwarmScenario.doneAgents(atCrash);
                assertTrue(doneBefore.size() < DurableSwarmScenario.N, "crashed mid-round, not after: " + doneBefore.size());

                ClusterSwarms.Outcome o = outcome.get(180, TimeUnit.SECONDS);
                assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), o.finished().answer(), "the uninterrupted answer: " + o);
                assertEquals(List.of(host.address().toString(), other.address().toString()), o.nodes(),
                        "the swarm went on on the other node by itself");
                assertEquals(other.address().toString(), o.finished().node());
                assertTrue(progress.stream().anyMatch(e -> e.path("kind").asText().equals("swarm_resumed")),
                        "the client saw the swarm resume");

                Map<String, List<Integer>> asked = new HashMap<>();
                calls.policyBefore.forEach((k, v) -> asked.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
                calls.policyAfter.forEach((k, v) -> asked.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
                // (The crash flag is set a moment before the node is gone: a call in that moment counts as after.)
                for (String agent : doneBefore) {
                    assertEquals(List.of(1, 2), asked.get(agent), agent + " answered before the crash: asked each turn once, not run again");
                    int entry = Integer.parseInt(agent.substring("root/s".length()));
                    assertEquals(1, calls.ledger.get(entry).size(), "entry " + entry + " read once: " + calls.ledger.get(entry));
                }
                assertEquals(1, asked.get("root").stream().filter(t -> t == 1).count(), "the plan is not made again: " + asked.get("root"));

                List<SwarmEvent> all = journal(reader, serialization);
                SwarmLedger end = SwarmLedger.replay(all);
                assertEquals(1, end.rounds().size(), "one round, planned once");
                assertEquals(DurableSwarmScenario.N, answered(all), "each sub-agent's answer journaled once");
                assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), end.ended().answer());
                assertTrue(Files.exists(dir.resolve("swarms").resolve(RUN).resolve("trace.jsonl")), "the nodes wrote the trace");
                Set<String> kept = new java.util.TreeSet<>();
                for (String line : Files.readAllLines(dir.resolve("swarms").resolve(RUN).resolve("trajectories.jsonl"))) {
                    kept.add(dev.agentswarm.core.json.Json.parse(line).path("episodeId").asText());
                }
                assertTrue(kept.size() >= DurableSwarmScenario.N, "every sub-agent's trajectory is in the swarm's folder: " + kept);

                // The swarm finished and passivated: a client attaching later gets the answer from the journal.
                ClusterSwarms.Outcome again = ClusterSwarms.run(client, RUN, null, hostConfig, List.of(), e -> {}, x -> {},
                        Duration.ofSeconds(60));
                assertEquals(Integer.toString(DurableSwarmScenario.EXPECTED), again.finished().answer());
                assertNotEquals(null, again.finished().metrics());
            }
        } finally {
            for (int i = nodes.size() - 1; i >= 0; i--) {
                nodes.get(i).system().terminate();
            }
            for (SwarmNode n : nodes) n.system().getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    private static List<SwarmEvent> journal(Connection reader, Serialization serialization) {
        try {
            return SwarmJournals.events(reader, SwarmJournal.persistenceId(RUN + ":root").id(), serialization);
        } catch (SQLException e) {
            // The tables may not be there for a moment at the start.
            return List.of();
        }
    }

    private static long answered(List<SwarmEvent> events) {
        return events.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded a && a.outcome() == SwarmEvent.Outcome.DONE).count();
    }
}
