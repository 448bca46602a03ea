package dev.agentswarm.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.RoundState;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmJournal;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A swarm of 20 sub-agents whose node crashes (its orchestrator and its worker with every episode
 * stopped at once) after the plan, mid-round and before the final answer: a new orchestrator on a new
 * worker resumes from the journal, runs no finished sub-agent again, plans nothing again, and answers as
 * the uninterrupted swarm does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurableSwarmTest {

    private final ActorTestKit kit = ActorTestKit.create("durable", PersistenceTestKitPlugin.getInstance().config()
            .withFallback(ConfigFactory.parseString("pekko.persistence.testkit.events.serialize = on"))
            .withFallback(EpisodeHarness.TEST_CONFIG));
    private final PersistenceTestKit journal = PersistenceTestKit.create(kit.system());
    private static final int N = 20;
    private static final int EXPECTED = java.util.stream.IntStream.range(0, N).map(i -> i * i).sum();

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static String plan() {
        List<String> tasks = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            tasks.add("{\"id\": \"s" + i + "\", \"goal\": \"Read entry " + i + " of the ledger\", \"tools\": [\"ledger\"]}");
        }
        return "[" + String.join(", ", tasks) + "]";
    }

    /** Who asked the policy for what, and how often each ledger entry was read, before and after the crash. */
    private static final class Calls {
        final AtomicBoolean crashed = new AtomicBoolean();
        final Map<String, List<Integer>> policyBefore = new ConcurrentHashMap<>();
        final Map<String, List<Integer>> policyAfter = new ConcurrentHashMap<>();
        final Map<Integer, List<Boolean>> ledger = new ConcurrentHashMap<>();

        String answer(CompletionRequest req) {
            String agent = SwarmHarness.agentOf(req.episodeId());
            (crashed.get() ? policyAfter : policyBefore).computeIfAbsent(agent, k -> new CopyOnWriteArrayList<>()).add(req.turn());
            if (agent.equals("root")) {
                if (req.turn() == 1) return SwarmTest.spawn(plan());
                int sum = 0;
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[s[0-9]+\\] answer: ([0-9]+)")
                        .matcher(SwarmTest.lastObservation(req));
                while (m.find()) sum += Integer.parseInt(m.group(1));
                return SwarmTest.finish(Integer.toString(sum));
            }
            if (!agent.startsWith("root/s")) throw new PolicyException("no script for " + agent, false);
            int i = Integer.parseInt(agent.substring("root/s".length()));
            return req.turn() == 1 ? SwarmTest.call("ledger", "{\"entry\": " + i + "}")
                    : SwarmTest.lastObservation(req).replaceAll("(?s).*= ([0-9]+).*", "$1");
        }

        FakeTool tool() {
            return FakeTool.named("ledger", args -> {
                int i = args.get("entry").asInt();
                ledger.computeIfAbsent(i, k -> new CopyOnWriteArrayList<>()).add(crashed.get());
                return "entry " + i + " = " + (i * i);
            });
        }
    }

    private SwarmHarness harness(Calls calls) {
        return SwarmHarness.on(kit, ScriptedPolicy.texts(calls::answer).withLatency(Duration.ofMillis(15)),
                ToolRegistry.of(new FinishTool()).plus(calls.tool()), "agentswarm.swarm.max-parallel = 4");
    }

    private List<SwarmEvent> journaled(String run) {
        List<SwarmEvent> out = new ArrayList<>();
        for (Object o : journal.persistedInStorage(SwarmJournal.persistenceId(run + ":root").id())) out.add((SwarmEvent) o);
        return out;
    }

    private static Set<String> doneAgents(List<SwarmEvent> events) {
        SwarmLedger ledger = SwarmLedger.replay(events);
        Set<String> done = new TreeSet<>();
        for (SwarmLedger.Round r : ledger.rounds()) {
            r.state().statuses().forEach((id, s) -> {
                if (s.state() == RoundState.State.DONE) done.add(r.agents().get(id));
            });
        }
        return done;
    }

    private void awaitJournal(String run, Predicate<List<SwarmEvent>> reached) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!reached.test(journaled(run))) {
            if (System.nanoTime() > until) throw new AssertionError("the journal of " + run + " never got there: " + journaled(run));
            Thread.sleep(5);
        }
    }

    /** Runs the swarm, crashes its node once {@code crashWhen} holds for its journal, resumes it on a new node. */
    private void crashAndResume(String run, Predicate<List<SwarmEvent>> crashWhen) throws Exception {
        Calls calls = new Calls();
        Task task = Task.of("sum", "Add up the squares in the ledger's entries 0 to 19.");
        SwarmHarness first = harness(calls);
        TestProbe<SwarmResult> lost = kit.createTestProbe();
        ActorRef<?> orchestrator = first.startDurable(run, task, SwarmTrace.inMemory(), lost.getRef());
        awaitJournal(run, crashWhen);
        calls.crashed.set(true);
        kit.stop(orchestrator); // the node dies: its orchestrator and every episode on its worker
        kit.stop(first.worker());
        List<SwarmEvent> atCrash = journaled(run);
        Set<String> doneBefore = doneAgents(atCrash);
        boolean planned = atCrash.stream().anyMatch(e -> e instanceof SwarmEvent.RoundPlanned);

        SwarmHarness second = harness(calls);
        TestProbe<SwarmResult> result = kit.createTestProbe();
        SwarmTrace trace = SwarmTrace.inMemory();
        second.startDurable(run, task, trace, result.getRef());
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(60));

        assertEquals(StopReason.FINAL_ANSWER, r.stopReason(), r.toString());
        assertEquals(Integer.toString(EXPECTED), r.answer(), "the uninterrupted swarm's answer");
        lost.expectNoMessage(Duration.ofMillis(10));
        for (String agent : doneBefore) {
            assertEquals(null, calls.policyAfter.get(agent), agent + " had answered before the crash: not run again");
        }
        for (Map.Entry<Integer, List<Boolean>> e : calls.ledger.entrySet()) {
            if (doneBefore.contains("root/s" + e.getKey())) assertTrue(!e.getValue().contains(true), "entry " + e.getKey() + " read again");
        }
        if (planned) {
            assertTrue(!calls.policyAfter.getOrDefault("root", List.of()).contains(1), "the plan is not made again: "
                    + calls.policyAfter.get("root"));
        }
        List<SwarmEvent> all = journaled(run);
        SwarmLedger end = SwarmLedger.replay(all);
        assertEquals(1, end.rounds().size(), "one round, planned once");
        assertEquals(N, doneAgents(all).size());
        long answers = all.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded a && a.outcome() == SwarmEvent.Outcome.DONE).count();
        assertEquals(N, answers, "each sub-agent answered once");
        assertEquals(Integer.toString(EXPECTED), end.ended().answer());
        assertTrue(trace.events().stream().anyMatch(e -> e.path("kind").asText().equals("swarm_resumed")), "the trace shows the resume");
    }

    @Test
    void killedAfterThePlanItResumesWithoutPlanningAgain() throws Exception {
        crashAndResume("after-plan", events -> events.stream().anyMatch(e -> e instanceof SwarmEvent.RoundPlanned));
    }

    @Test
    void killedMidRoundItRunsOnlyWhatHadNotAnswered() throws Exception {
        crashAndResume("mid-round", events -> events.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded).count() >= 10);
    }

    @Test
    void killedBeforeTheFinalAnswerItAnswersFromTheJournal() throws Exception {
        crashAndResume("final", events -> events.stream().anyMatch(e -> e instanceof SwarmEvent.RoundEnded));
    }

    @Test
    void aFinishedSwarmStartedAgainAnswersFromItsJournalAlone() throws Exception {
        Calls calls = new Calls();
        Task task = Task.of("sum", "Add up the squares in the ledger's entries 0 to 19.");
        TestProbe<SwarmResult> first = kit.createTestProbe();
        harness(calls).startDurable("finished", task, SwarmTrace.inMemory(), first.getRef());
        assertEquals(Integer.toString(EXPECTED), first.receiveMessage(Duration.ofSeconds(60)).answer());
        calls.crashed.set(true);
        TestProbe<SwarmResult> again = kit.createTestProbe();
        harness(calls).startDurable("finished", task, SwarmTrace.inMemory(), again.getRef());
        assertEquals(Integer.toString(EXPECTED), again.receiveMessage(Duration.ofSeconds(10)).answer());
        assertTrue(calls.policyAfter.isEmpty(), "nothing ran: " + calls.policyAfter);
    }
}
