package dev.agentswarm.app.bench;

import com.typesafe.config.Config;
import dev.agentswarm.app.JournalDatabase;
import dev.agentswarm.app.cli.Report;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.orchestrator.swarm.Join;
import dev.agentswarm.orchestrator.swarm.Plan;
import dev.agentswarm.orchestrator.swarm.SubAgentMode;
import dev.agentswarm.orchestrator.swarm.SubTask;
import dev.agentswarm.orchestrator.swarm.SwarmEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The events per second a journal database sustains through {@link dev.agentswarm.orchestrator.swarm.SwarmJournal}:
 * {@code swarms} journals at once, each writing a whole swarm's events ({@link #swarm}: a plan of
 * {@code subagents} sub-agents, each {@code turns} recorded turns with a completion of 64 tokens and
 * their log-probs and a tool result, its start and its answer) as an orchestrator sends them, one batch
 * in flight and at most {@code maxBatch} events in one. Snapshots as configured.
 */
public final class JournalThroughputBenchmark {

    public record Settings(int swarms, int subAgents, int turns, int maxBatch) {
        public Settings {
            if (swarms < 1 || subAgents < 1 || turns < 1 || maxBatch < 1) {
                throw new IllegalArgumentException("need swarms, subagents, turns and max-batch >= 1");
            }
        }
    }

    private JournalThroughputBenchmark() {}

    /** A swarm's journal, in an order a live one could have written it (sub-agents take turns round-robin). */
    static List<SwarmEvent> swarm(String run, int subAgents, int turns) {
        List<SubTask> tasks = new ArrayList<>();
        Map<String, String> agents = new LinkedHashMap<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < subAgents; i++) {
            tasks.add(new SubTask("s" + i, "Find the part " + i + " of the answer and report it with its source.", SubAgentMode.SEARCH,
                    List.of("search", "retrieve"), List.of()));
            agents.put("s" + i, "root/s" + i);
            ids.add("s" + i);
        }
        int[] tokens = new int[64];
        float[] logprobs = new float[64];
        for (int i = 0; i < 64; i++) {
            tokens[i] = 1000 + i * 37;
            logprobs[i] = -0.01f * i;
        }
        List<SwarmEvent> out = new ArrayList<>();
        out.add(new SwarmEvent.SwarmStarted("t-" + run, "A question that needs " + subAgents + " look-ups."));
        out.add(new SwarmEvent.StepRecorded(run + ":root", 1, new EpisodeHistory.Step(new Completion(
                "<tool_call>{\"name\": \"spawn_subagents\", ...}</tool_call>", List.of(), tokens, logprobs, FinishReason.TOOL_CALLS, 0,
                900, 64), null)));
        out.add(new SwarmEvent.RoundPlanned(1, 1, new Plan(tasks, List.of(ids), Join.ALL), agents));
        for (int i = 0; i < subAgents; i++) {
            out.add(new SwarmEvent.AttemptStarted(1, "s" + i, "root/s" + i, 1, run + ":root/s" + i, false));
        }
        for (int t = 1; t <= turns; t++) {
            for (int i = 0; i < subAgents; i++) {
                ToolCall call = new ToolCall("call_" + t, "search", Json.MAPPER.createObjectNode().put("query", "part " + i + " step " + t));
                Completion c = new Completion("<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"part " + i + " step " + t
                        + "\"}}</tool_call>", List.of(call), tokens, logprobs, FinishReason.TOOL_CALLS, 0, 400 + 150 * t, 64);
                ToolResult r = new ToolResult("call_" + t, "search", ("Result " + t + " for part " + i + ": ").repeat(8), ToolStatus.OK,
                        false, 12_000_000L);
                out.add(new SwarmEvent.StepRecorded(run + ":root/s" + i, t, new EpisodeHistory.Step(c, List.of(r))));
            }
        }
        for (int i = 0; i < subAgents; i++) {
            out.add(new SwarmEvent.AttemptEnded(run + ":root/s" + i, SwarmEvent.Outcome.DONE, "part " + i, turns + 1, 64L * (turns + 1),
                    turns + 1, "trajectories.jsonl#" + i));
        }
        out.add(new SwarmEvent.RoundEnded(1));
        out.add(new SwarmEvent.SwarmEnded("all parts", StopReason.FINAL_ANSWER, null, 2, 128));
        return out;
    }

    /** Writes {@code s.swarms()} swarms at once on the journal database of {@code config}; returns the figures. */
    public static Map<String, Object> run(Config config, String database, Settings s, Consumer<String> log) throws Exception {
        List<List<SwarmEvent>> journals = new ArrayList<>();
        String tag = Long.toString(System.currentTimeMillis(), 36);
        for (int w = 0; w < s.swarms(); w++) journals.add(swarm("bench-" + tag + "-" + w, s.subAgents(), s.turns()));
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "journal-bench", config);
        try {
            JournalDatabase.createSchema(system, config);
            // A warm-up swarm, so the figures leave out class loading and the first connections.
            runOnce(system, List.of(swarm("warmup-" + tag, s.subAgents(), s.turns())), "warmup-" + tag, s.maxBatch());
            long start = System.nanoTime();
            long end = runOnce(system, journals, "bench-" + tag, s.maxBatch());
            double seconds = (end - start) / 1e9;
            long events = journals.stream().mapToLong(List::size).sum();
            log.accept(String.format("%s: %d events of %d swarms in %.2f s", database, events, s.swarms(), seconds));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("journal", database);
            out.put("swarms", s.swarms());
            out.put("events", events);
            out.put("max_batch", s.maxBatch());
            out.put("snapshot_every", config.getInt("agentswarm.swarm.journal.snapshot-every"));
            out.put("seconds", Report.round(seconds, 3));
            out.put("events_per_s", Math.round(events / seconds));
            return out;
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private static long runOnce(ActorSystem<Void> system, List<List<SwarmEvent>> journals, String prefix, int maxBatch) throws Exception {
        List<CompletableFuture<Long>> done = new ArrayList<>();
        for (int w = 0; w < journals.size(); w++) {
            CompletableFuture<Long> d = new CompletableFuture<>();
            done.add(d);
            String run = journals.size() == 1 && prefix.startsWith("warmup") ? prefix : prefix + "-" + w;
            system.systemActorOf(JournalFeeder.create(run + ":root", journals.get(w), maxBatch, d), "feeder-" + run,
                    org.apache.pekko.actor.typed.Props.empty());
        }
        long end = 0;
        for (CompletableFuture<Long> d : done) end = Math.max(end, d.get(10, TimeUnit.MINUTES));
        return end;
    }
}
