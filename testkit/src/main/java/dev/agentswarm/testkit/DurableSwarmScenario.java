package dev.agentswarm.testkit;

import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.RoundState;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import dev.agentswarm.orchestrator.swarm.SwarmLedger;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The crash test of durable swarms, on whatever journal the kit's actor system is configured with: a
 * swarm of 20 sub-agents (each reads an entry of a side-effecting ledger tool, then answers; the root
 * adds the answers up) whose node crashes (its orchestrator and its worker with every episode stopped
 * at once) when its journal reaches a given point, then a new orchestrator on a new worker resumes it.
 * {@link #crashAndResume} checks what a resume promises and fails with an {@link AssertionError}.
 */
public final class DurableSwarmScenario {

    public static final int N = 20;
    public static final int EXPECTED = java.util.stream.IntStream.range(0, N).map(i -> i * i).sum();
    public static final Task TASK = Task.of("sum", "Add up the squares in the ledger's entries 0 to 19.");

    private final ActorTestKit kit;
    /** The events journaled so far for a run's root orchestrator, read from the journal's storage. */
    private final Function<String, List<SwarmEvent>> journal;

    public DurableSwarmScenario(ActorTestKit kit, Function<String, List<SwarmEvent>> journal) {
        this.kit = kit;
        this.journal = journal;
    }

    /**
     * Who asked the policy for what, and how often each ledger entry was read, before and after the crash:
     * by the node that crashed and the one that resumed when each has its own ({@link #harness} does, since
     * the first node's episodes may still ask while it is being stopped), else by when the crash came.
     */
    public static final class Calls {
        /** Set at the crash: calls after it count as after, unless counted by node. */
        public final AtomicBoolean crashed = new AtomicBoolean();
        public final Map<String, List<Integer>> policyBefore = new ConcurrentHashMap<>();
        public final Map<String, List<Integer>> policyAfter = new ConcurrentHashMap<>();
        public final Map<Integer, List<Boolean>> ledger = new ConcurrentHashMap<>();

        /** The script: the root plans N sub-agents, each reads its ledger entry and answers, the root adds them up. */
        public String answer(CompletionRequest req) {
            return answer(req, crashed.get());
        }

        /** The same, counted as the node that crashed ({@code resumedNode} false) or the one that resumed asked. */
        public String answer(CompletionRequest req, boolean resumedNode) {
            String agent = SwarmHarness.agentOf(req.episodeId());
            (resumedNode ? policyAfter : policyBefore).computeIfAbsent(agent, k -> new CopyOnWriteArrayList<>()).add(req.turn());
            if (agent.equals("root")) {
                if (req.turn() == 1) return call("spawn_subagents", "{\"subtasks\": " + plan() + "}");
                int sum = 0;
                Matcher m = Pattern.compile("\\[s[0-9]+\\] answer: ([0-9]+)").matcher(lastObservation(req));
                while (m.find()) sum += Integer.parseInt(m.group(1));
                return call("finish", "{\"answer\": \"" + sum + "\"}");
            }
            if (!agent.startsWith("root/s")) throw new PolicyException("no script for " + agent, false);
            int i = Integer.parseInt(agent.substring("root/s".length()));
            return req.turn() == 1 ? call("ledger", "{\"entry\": " + i + "}")
                    : lastObservation(req).replaceAll("(?s).*= ([0-9]+).*", "$1");
        }

        /** The ledger tool, counting its reads before or after the crash. Reading an entry is idempotent: a read in flight at the crash is read again. */
        public FakeTool tool() {
            return ledgerTool(crashed::get);
        }

        /** The same, its reads counted as the node that crashed ({@code resumedNode} false) or the one that resumed made them. */
        public FakeTool tool(boolean resumedNode) {
            return ledgerTool(() -> resumedNode);
        }

        private FakeTool ledgerTool(java.util.function.BooleanSupplier after) {
            return FakeTool.named("ledger", args -> {
                int i = args.get("entry").asInt();
                ledger.computeIfAbsent(i, k -> new CopyOnWriteArrayList<>()).add(after.getAsBoolean());
                return "entry " + i + " = " + (i * i);
            }).withIdempotent(true);
        }
    }

    private static String call(String tool, String argsJson) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": " + argsJson + "}\n</tool_call>";
    }

    private static String lastObservation(CompletionRequest req) {
        List<Message> m = req.messages();
        return m.get(m.size() - 1).content();
    }

    private static String plan() {
        List<String> tasks = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            tasks.add("{\"id\": \"s" + i + "\", \"goal\": \"Read entry " + i + " of the ledger\", \"tools\": [\"ledger\"]}");
        }
        return "[" + String.join(", ", tasks) + "]";
    }

    /** A node for the swarm: the one that resumes when made after the crash. */
    public SwarmHarness harness(Calls calls) {
        boolean resumedNode = calls.crashed.get();
        Policy scripted = ScriptedPolicy.texts(req -> calls.answer(req, resumedNode)).withLatency(Duration.ofMillis(15));
        // Before the crash the orchestrator takes its time over the final answer, so the node dies while it thinks, not after.
        Executor later = CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS);
        Policy policy = req -> SwarmHarness.agentOf(req.episodeId()).equals("root") && req.turn() > 1 && !calls.crashed.get()
                ? CompletableFuture.runAsync(() -> {}, later).thenCompose(v -> scripted.complete(req))
                : scripted.complete(req);
        return SwarmHarness.on(kit, policy, ToolRegistry.of(new FinishTool()).plus(calls.tool(resumedNode)), "agentswarm.swarm.max-parallel = 4");
    }

    public static Set<String> doneAgents(List<SwarmEvent> events) {
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
        while (!reached.test(journal.apply(run))) {
            if (System.nanoTime() > until) throw new AssertionError("the journal of " + run + " never got there: " + journal.apply(run));
            Thread.sleep(5);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    /** Runs the swarm, crashes its node once {@code crashWhen} holds for its journal, resumes it on a new node, checks. */
    public void crashAndResume(String run, Predicate<List<SwarmEvent>> crashWhen) throws Exception {
        Calls calls = new Calls();
        SwarmHarness first = harness(calls);
        TestProbe<SwarmResult> lost = kit.createTestProbe();
        ActorRef<?> orchestrator = first.startNewDurable(run, TASK, SwarmTrace.inMemory(), lost.getRef());
        awaitJournal(run, crashWhen);
        calls.crashed.set(true);
        kit.stop(orchestrator); // the node dies: its orchestrator and every episode on its worker
        kit.stop(first.worker());
        List<SwarmEvent> atCrash = journal.apply(run);
        Set<String> doneBefore = doneAgents(atCrash);
        boolean planned = atCrash.stream().anyMatch(e -> e instanceof SwarmEvent.RoundPlanned);

        SwarmHarness second = harness(calls);
        TestProbe<SwarmResult> result = kit.createTestProbe();
        SwarmTrace trace = SwarmTrace.inMemory();
        second.startDurable(run, TASK, trace, result.getRef());
        SwarmResult r = result.receiveMessage(Duration.ofSeconds(60));

        check(r.stopReason() == StopReason.FINAL_ANSWER, "the resumed swarm answered: " + r);
        check(Integer.toString(EXPECTED).equals(r.answer()), "the uninterrupted swarm's answer " + EXPECTED + ", got " + r.answer());
        lost.expectNoMessage(Duration.ofMillis(10));
        for (String agent : doneBefore) {
            check(calls.policyAfter.get(agent) == null, agent + " had answered before the crash: not run again");
        }
        for (Map.Entry<Integer, List<Boolean>> e : calls.ledger.entrySet()) {
            if (doneBefore.contains("root/s" + e.getKey())) check(!e.getValue().contains(true), "entry " + e.getKey() + " read again");
        }
        if (planned) {
            check(!calls.policyAfter.getOrDefault("root", List.of()).contains(1), "the plan is not made again: " + calls.policyAfter.get("root"));
        }
        List<SwarmEvent> all = journal.apply(run);
        SwarmLedger end = SwarmLedger.replay(all);
        check(end.rounds().size() == 1, "one round, planned once");
        check(doneAgents(all).size() == N, "every sub-agent answered: " + doneAgents(all));
        long answers = all.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded a && a.outcome() == SwarmEvent.Outcome.DONE).count();
        check(answers == N, "each sub-agent answered once, not " + answers + " times");
        check(end.ended() != null && Objects.equals(Integer.toString(EXPECTED), end.ended().answer()), "the journal holds the answer");
        check(trace.events().stream().map(e -> e.path("kind").asText()).anyMatch("swarm_resumed"::equals), "the trace shows the resume");
    }

    /**
     * A swarm that finished, started again, answers from its journal and runs nothing; started again as a
     * new swarm, it is refused naming why, and its journal is left as it was.
     */
    public void finishedAnswersFromItsJournal(String run) {
        Calls calls = new Calls();
        TestProbe<SwarmResult> first = kit.createTestProbe();
        harness(calls).startDurable(run, TASK, SwarmTrace.inMemory(), first.getRef());
        check(Integer.toString(EXPECTED).equals(first.receiveMessage(Duration.ofSeconds(60)).answer()), "the first run answers");
        calls.crashed.set(true);
        TestProbe<SwarmResult> again = kit.createTestProbe();
        harness(calls).startDurable(run, TASK, SwarmTrace.inMemory(), again.getRef());
        check(Integer.toString(EXPECTED).equals(again.receiveMessage(Duration.ofSeconds(10)).answer()), "the journal's answer");
        check(calls.policyAfter.isEmpty(), "nothing ran: " + calls.policyAfter);

        List<SwarmEvent> before = journal.apply(run);
        TestProbe<SwarmResult> asNew = kit.createTestProbe();
        SwarmTrace trace = SwarmTrace.inMemory();
        harness(calls).startNewDurable(run, TASK, trace, asNew.getRef());
        SwarmResult refused = asNew.receiveMessage(Duration.ofSeconds(10));
        check(refused.stopReason() == StopReason.CRASHED && refused.answer() == null, "a new swarm over a journaled one is refused: " + refused);
        check(refused.error() != null && refused.error().contains("already holds " + before.size() + " of its events"),
                "the refusal says why: " + refused.error());
        check(trace.events().stream().anyMatch(e -> e.path("kind").asText().equals("journal_refused")), "the trace shows the refusal");
        check(journal.apply(run).equals(before), "nothing was written over the journal");
    }

    /** The crash points every journal is tested at: after the plan, mid-round, once the round has ended. */
    public static final Predicate<List<SwarmEvent>> AFTER_PLAN = events -> events.stream().anyMatch(e -> e instanceof SwarmEvent.RoundPlanned);
    public static final Predicate<List<SwarmEvent>> MID_ROUND =
            events -> events.stream().filter(e -> e instanceof SwarmEvent.AttemptEnded).count() >= N / 2;
    public static final Predicate<List<SwarmEvent>> BEFORE_ANSWER = events -> events.stream().anyMatch(e -> e instanceof SwarmEvent.RoundEnded);
}
