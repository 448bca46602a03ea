package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.orchestrator.swarm.TrajectoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a durable swarm resumes, beyond {@link DurableSwarmTest}: a nested orchestrator killed in the
 * middle of its own round, and a sub-agent killed while a call that must not run twice was running.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurableResumeTest {

    private final ActorTestKit kit = ActorTestKit.create("durable-resume", PersistenceTestKitPlugin.getInstance().config()
            .withFallback(ConfigFactory.parseString("pekko.persistence.testkit.events.serialize = on"))
            .withFallback(EpisodeHarness.TEST_CONFIG));
    private final PersistenceTestKit storage = PersistenceTestKit.create(kit.system());

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private List<SwarmEvent> journal(String orchestrator) {
        return SwarmEvent.Batch.unpacked(storage.persistedInStorage(SwarmJournal.persistenceId(orchestrator).id()));
    }

    private void awaitJournal(String orchestrator, Predicate<List<SwarmEvent>> reached) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!reached.test(journal(orchestrator))) {
            if (System.nanoTime() > until) throw new AssertionError(orchestrator + "'s journal never got there: " + journal(orchestrator));
            Thread.sleep(5);
        }
    }

    private static String call(String tool, String argsJson) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": " + argsJson + "}\n</tool_call>";
    }

    private static String lastObservation(CompletionRequest req) {
        List<Message> m = req.messages();
        return m.get(m.size() - 1).content();
    }

    private static int sumOfAnswers(String observation) {
        int sum = 0;
        Matcher m = Pattern.compile("\\[[a-z0-9]+\\] answer: ([0-9]+)").matcher(observation);
        while (m.find()) sum += Integer.parseInt(m.group(1));
        return sum;
    }

    private static long answers(List<SwarmEvent> events) {
        return events.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded a && a.outcome() == SwarmEvent.Outcome.DONE).count();
    }

    // ---- a nested orchestrator killed mid-round ----------------------------------------------------

    private static final int NESTED = 8;
    /** Entries 0..7 squared (the nested orchestrator's sum), and entry 8 squared (the root's other sub-agent). */
    private static final int EXPECTED = 140 + 64;

    /** Who asked the policy for which turn, and which ledger entries were read, on one node. */
    private static final class Node {
        final Map<String, List<Integer>> policy = new ConcurrentHashMap<>();
        final Map<Integer, AtomicInteger> reads = new ConcurrentHashMap<>();

        String answer(CompletionRequest req) {
            String agent = SwarmHarness.agentOf(req.episodeId());
            policy.computeIfAbsent(agent, k -> new CopyOnWriteArrayList<>()).add(req.turn());
            switch (agent) {
                case "root" -> {
                    if (req.turn() == 1) {
                        return call("spawn_subagents", "{\"subtasks\": [{\"id\": \"n\", \"goal\": \"Add up the squares in entries 0 to 7\","
                                + " \"mode\": \"orchestrator\"}, {\"id\": \"p\", \"goal\": \"Read entry 8\", \"tools\": [\"ledger\"]}]}");
                    }
                    return call("finish", "{\"answer\": \"" + sumOfAnswers(lastObservation(req)) + "\"}");
                }
                case "root/n" -> {
                    if (req.turn() == 1) {
                        List<String> tasks = new ArrayList<>();
                        for (int i = 0; i < NESTED; i++) {
                            tasks.add("{\"id\": \"s" + i + "\", \"goal\": \"Read entry " + i + "\", \"tools\": [\"ledger\"]}");
                        }
                        return call("spawn_subagents", "{\"subtasks\": [" + String.join(", ", tasks) + "]}");
                    }
                    return call("finish", "{\"answer\": \"" + sumOfAnswers(lastObservation(req)) + "\"}");
                }
                default -> {
                    int entry = agent.equals("root/p") ? 8 : agent.startsWith("root/n/s") ? Integer.parseInt(agent.substring(8)) : -1;
                    if (entry < 0) throw new PolicyException("no script for " + agent, false);
                    return req.turn() == 1 ? call("ledger", "{\"entry\": " + entry + "}")
                            : lastObservation(req).replaceAll("(?s).*= ([0-9]+).*", "$1");
                }
            }
        }

        /** A node whose policy answers the nested sub-agents s3.. only after {@code slowLater}: the node dies meanwhile. */
        SwarmHarness harness(ActorTestKit kit, Duration slowLater) {
            Policy scripted = ScriptedPolicy.texts(this::answer).withLatency(Duration.ofMillis(25));
            java.util.concurrent.Executor later = java.util.concurrent.CompletableFuture.delayedExecutor(slowLater.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            Policy policy = req -> {
                String agent = SwarmHarness.agentOf(req.episodeId());
                boolean slow = agent.startsWith("root/n/s") && Integer.parseInt(agent.substring(8)) >= 3 && !slowLater.isZero();
                return slow ? java.util.concurrent.CompletableFuture.runAsync(() -> {}, later).thenCompose(v -> scripted.complete(req))
                        : scripted.complete(req);
            };
            FakeTool ledger = FakeTool.named("ledger", args -> {
                int i = args.get("entry").asInt();
                reads.computeIfAbsent(i, k -> new AtomicInteger()).incrementAndGet();
                return "entry " + i + " = " + (i * i);
            }).withIdempotent(true);
            return SwarmHarness.on(kit, policy, ToolRegistry.of(new FinishTool()).plus(ledger), "agentswarm.swarm.max-parallel = 2");
        }
    }

    @Test
    void aNestedOrchestratorKilledMidRoundResumesWithoutPlanningAgainOrRunningWhatAnswered() throws Exception {
        String run = "nested";
        Task task = Task.of("sum", "Add up the squares in the ledger's entries 0 to 8.");
        Node first = new Node();
        SwarmHarness before = first.harness(kit, Duration.ofSeconds(3));
        TestProbe<SwarmResult> lost = kit.createTestProbe();
        TrajectoryStore trajectories = TrajectoryStore.inMemory(); // the run's trajectory file, which outlives the node
        ActorRef<?> root = before.startDurable(run, task, SwarmTrace.inMemory(), trajectories, lost.getRef());
        awaitJournal(run + ":root/n", events -> answers(events) >= 2);
        kit.stop(root); // the node dies: both orchestrators and every episode on its worker
        kit.stop(before.worker());
        List<SwarmEvent> nestedAtCrash = journal(run + ":root/n");
        List<SwarmEvent> rootAtCrash = journal(run + ":root");
        Set<String> doneBefore = DurableSwarmScenario.doneAgents(nestedAtCrash);
        assertTrue(doneBefore.size() < NESTED, "killed mid-round: " + doneBefore);
        assertNull(SwarmLedger.replay(rootAtCrash).ended(), "the root had not answered");

        Node second = new Node();
        SwarmHarness after = second.harness(kit, Duration.ZERO);
        TestProbe<SwarmResult> result = kit.createTestProbe();
        SwarmTrace trace = SwarmTrace.inMemory();
        after.startDurable(run, task, trace, trajectories, result.getRef());
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(60));

        assertEquals(StopReason.FINAL_ANSWER, r.stopReason(), r.toString());
        assertEquals(Integer.toString(EXPECTED), r.answer(), "the uninterrupted swarm's answer");
        // Every sub-agent of the tree carries its trajectory, those that finished before the crash read back.
        SwarmResult.SubAgent n = r.subAgents().stream().filter(a -> a.agent().equals("root/n")).findFirst().orElseThrow();
        assertEquals(NESTED, n.nested().subAgents().size());
        for (SwarmResult.SubAgent a : n.nested().subAgents()) {
            assertEquals(1, a.trajectories().size(), a.agent() + "'s trajectory");
            Trajectory t = a.trajectories().get(0);
            assertEquals(a.answer(), t.finalAnswer(), a.agent());
            assertEquals(3, t.turns().size(), a.agent() + ": its call, the ledger's answer, its own");
        }
        for (SwarmEvent e : journal(run + ":root/n")) {
            if (e instanceof SwarmEvent.AttemptEnded ended) {
                Trajectory kept = trajectories.read(ended.trajectoryRef()).orElseThrow();
                assertEquals(ended.episodeId(), kept.episodeId(), "the journal names where each trajectory is");
            }
        }
        // The uninterrupted swarm's counts: 2 + 8 sub-agents; 2 policy turns each for the root, n, p and s0..s7.
        assertEquals(2 + NESTED, r.metrics().subAgents(), "the budget counts the nested sub-agents planned before the crash");
        assertEquals(2 * (3 + NESTED), r.metrics().turns(), "and every policy turn once");
        lost.expectNoMessage(Duration.ofMillis(10));
        for (String agent : doneBefore) {
            assertNull(second.policy.get(agent), agent + " had answered before the crash: not run again");
            int entry = Integer.parseInt(agent.substring("root/n/s".length()));
            assertNull(second.reads.get(entry), "entry " + entry + " was read again");
        }
        assertFalse(second.policy.getOrDefault("root", List.of()).contains(1), "the root does not plan again: " + second.policy);
        assertFalse(second.policy.getOrDefault("root/n", List.of()).contains(1), "the nested orchestrator does not plan again: "
                + second.policy);
        for (int i = 0; i < NESTED; i++) {
            String agent = "root/n/s" + i;
            if (!doneBefore.contains(agent)) {
                assertTrue(first.reads.containsKey(i) || second.reads.containsKey(i), agent + " ran somewhere");
            }
        }

        List<SwarmEvent> nested = journal(run + ":root/n");
        SwarmLedger nestedLedger = SwarmLedger.replay(nested);
        assertEquals(1, nestedLedger.rounds().size(), "the nested round was planned once");
        assertEquals(NESTED, answers(nested), "each nested sub-agent answered once");
        assertEquals("140", nestedLedger.ended().answer(), "the nested journal holds its answer");
        List<SwarmEvent> top = journal(run + ":root");
        SwarmLedger rootLedger = SwarmLedger.replay(top);
        assertEquals(1, rootLedger.rounds().size(), "the root's round was planned once");
        assertEquals(2, answers(top), "n and p answered once each");
        assertEquals(Integer.toString(EXPECTED), rootLedger.ended().answer());
        Set<String> resumed = trace.events().stream().filter(e -> e.path("kind").asText().equals("swarm_resumed"))
                .map(e -> e.path("agent").asText()).collect(Collectors.toSet());
        assertEquals(Set.of("root", "root/n"), resumed, "both orchestrators resumed from their journals");
    }

    // ---- a call that must not run twice, in flight at the crash -------------------------------------

    @Test
    void aCallThatMustNotRunTwiceInFlightAtTheCrashIsNotRunAgainAndTheSubAgentIsToldSo() throws Exception {
        String run = "pay";
        Task task = Task.of("pay", "Pay ann 5 and say whether it went through.");
        List<String> observations = new CopyOnWriteArrayList<>();
        Policy scripted = ScriptedPolicy.texts(req -> {
            String agent = SwarmHarness.agentOf(req.episodeId());
            if (agent.equals("root")) {
                return req.turn() == 1 ? call("spawn_subagents", "{\"subtasks\": [{\"id\": \"payer\", \"goal\": \"Pay ann 5\","
                        + " \"tools\": [\"pay\", \"balance\"]}]}")
                        : call("finish", "{\"answer\": \"" + (lastObservation(req).contains("answer: paid") ? "paid" : "failed") + "\"}");
            }
            if (req.turn() == 1) return call("pay", "{\"to\": \"ann\", \"amount\": 5}");
            observations.add(lastObservation(req));
            // Told the payment was interrupted, the model checks before paying again; the balance shows it went through.
            if (req.turn() == 2 && lastObservation(req).contains("interrupted")) return call("balance", "{\"of\": \"ann\"}");
            return "paid";
        });
        FakeTool pay = FakeTool.returning("pay", "paid ann 5").withLatency(Duration.ofMillis(1500));
        FakeTool balance = FakeTool.returning("balance", "ann has 5").withIdempotent(true);
        ToolRegistry tools = ToolRegistry.of(new FinishTool()).plus(pay).plus(balance);
        SwarmHarness before = SwarmHarness.on(kit, scripted, tools, "");
        TestProbe<SwarmResult> lost = kit.createTestProbe();
        ActorRef<?> root = before.startDurable(run, task, SwarmTrace.inMemory(), lost.getRef());
        // The payer's first turn is journaled before pay starts: crash once pay has started and not ended.
        awaitJournal(run + ":root", events -> events.stream().anyMatch(e -> e instanceof SwarmEvent.StepRecorded s
                && s.episodeId().endsWith("root/payer") && s.turn() == 1 && s.step().results() == null));
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (pay.callCount() == 0 && System.nanoTime() < until) Thread.sleep(5);
        assertEquals(1, pay.callCount(), "pay started once the journal held the turn");
        kit.stop(root);
        kit.stop(before.worker());

        SwarmHarness after = SwarmHarness.on(kit, scripted, tools, "");
        TestProbe<SwarmResult> result = kit.createTestProbe();
        SwarmTrace trace = SwarmTrace.inMemory();
        after.startDurable(run, task, trace, result.getRef());
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(30));

        assertEquals("paid", r.answer(), r.toString());
        Thread.sleep(1600); // long enough for the first node's pay to have ended, had it not been stopped
        assertEquals(1, pay.callCount(), "pay ran once in all, before the crash: not again on resume");
        assertTrue(observations.get(0).contains("interrupted by a crash"), "the sub-agent read: " + observations);
        assertEquals(1, balance.callCount(), "and checked before going on");
        Trajectory payer = r.subAgents().get(0).trajectories().get(0);
        ToolResult interrupted = payer.turns().get(1).toolResults().get(0);
        assertEquals(ToolStatus.INTERRUPTED, interrupted.status(), "the trajectory shows the interrupted call");
        assertTrue(trace.events().stream().anyMatch(e -> e.path("kind").asText().equals("message")
                && e.path("agent").asText().equals("root/payer") && e.has("interrupted")), "the trace shows it");
        SwarmLedger end = SwarmLedger.replay(journal(run + ":root"));
        assertEquals("paid", end.ended().answer());
    }
}
