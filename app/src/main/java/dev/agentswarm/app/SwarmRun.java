package dev.agentswarm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.ParlReward;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.orchestrator.swarm.TrajectoryStore;
import dev.agentswarm.orchestrator.WorkerRoute;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One swarm on a node: the root {@link Orchestrator} on the task, its episodes on the node's worker
 * region, its events into {@code runDir/trace.jsonl} (and to a listener, the live view), and at the
 * end {@code runDir/trace.html} and the result with its PARL reward.
 */
public final class SwarmRun {

    /** Episode ids start with this, not with the run folder's name, so a replay asks for the same ids. */
    public static final String RUN_ID = "swarm";

    private SwarmRun() {}

    /**
     * The run id a journaled swarm of {@code runDir} goes by: {@link #RUN_ID} in the folder's own H2
     * journal; in a database that many runs share (PostgreSQL) an id of its own, kept in
     * {@code runDir/run-id} so that {@code --resume} finds the same swarm and no two runs share a journal.
     */
    public static String runId(Path runDir, boolean sharedJournal) throws java.io.IOException {
        if (!sharedJournal) return RUN_ID;
        Path file = runDir.resolve("run-id");
        if (Files.exists(file)) return Files.readString(file).strip();
        String id = ClusterSwarms.newRunId();
        Files.createDirectories(runDir);
        Files.writeString(file, id + "\n");
        return id;
    }

    public record Outcome(SwarmResult result, Path trace, Path html) {}

    /** Whether a swarm keeps a journal, and whether it is known to be new or may be in the journal already. */
    public enum Journaling {
        /** In memory only: gone with its process. */
        NONE,
        /** Journaled and known to be new (a fresh run folder, a new run id): it starts without reading its journal first. */
        NEW,
        /** Journaled, and resumed when the journal already holds it (otherwise started). */
        RESUME
    }

    /**
     * Starts the root orchestrator of run {@code runId} on {@code task}, its episodes on the node's worker
     * region; {@code done} is completed with its result, on the thread that delivers it.
     */
    public static void start(SwarmNode node, SwarmSettings settings, String runId, Task task, SwarmTrace trace,
                             CompletableFuture<SwarmResult> done) {
        start(node, settings, runId, task, trace, Journaling.NONE, TrajectoryStore.NONE, done);
    }

    /** The same, journaled as {@code journaling} says on the node's journal plugin ({@link JournalDatabase}). */
    public static void start(SwarmNode node, SwarmSettings settings, String runId, Task task, SwarmTrace trace,
                             CompletableFuture<SwarmResult> done, Journaling journaling) {
        start(node, settings, runId, task, trace, journaling, TrajectoryStore.NONE, done);
    }

    /**
     * The same; a journaled swarm keeps its sub-agents' trajectories in {@code trajectories}, its journal
     * naming where each is.
     */
    public static void start(SwarmNode node, SwarmSettings settings, String runId, Task task, SwarmTrace trace,
                             Journaling journaling, TrajectoryStore trajectories, CompletableFuture<SwarmResult> done) {
        var replyTo = node.system().systemActorOf(Behaviors.receive(SwarmResult.class).onMessage(SwarmResult.class, r -> {
            done.complete(r);
            return Behaviors.stopped();
        }).build(), "swarm-result-" + runId + "-" + System.nanoTime(), Props.empty());
        WorkerRoute route = WorkerRoute.sharded(node.workerRegion(), node.workerEntities());
        Orchestrator.Place root = Orchestrator.Place.root(runId);
        var orchestrator = switch (journaling) {
            case NONE -> Orchestrator.create(settings, root, task, route, trace, replyTo);
            case NEW -> Orchestrator.createNewDurable(settings, root, task, route, trace, trajectories, replyTo);
            case RESUME -> Orchestrator.createDurable(settings, root, task, route, trace, trajectories, replyTo);
        };
        node.system().systemActorOf(orchestrator, "swarm-" + runId + "-" + System.nanoTime(), Props.empty());
    }

    public static Outcome run(SwarmNode node, SwarmSettings settings, Task task, Path runDir, Consumer<ObjectNode> listener)
            throws Exception {
        return run(node, settings, task, runDir, listener, Journaling.NONE, RUN_ID);
    }

    /**
     * The same, as run {@code runId} (see {@link #runId}), journaled as {@code journaling} says on the node's
     * journal plugin: a swarm resumed from its journal goes on in the same trace, after the events already
     * there. A journaled swarm's sub-agents' trajectories go to {@code runDir/trajectories.jsonl}, where a
     * resumed run reads back those of the sub-agents that finished before the crash.
     */
    public static Outcome run(SwarmNode node, SwarmSettings settings, Task task, Path runDir, Consumer<ObjectNode> listener,
                              Journaling journaling, String runId) throws Exception {
        Path tracePath = runDir.resolve("trace.jsonl");
        CompletableFuture<SwarmResult> done = new CompletableFuture<>();
        SwarmResult result;
        boolean durable = journaling != Journaling.NONE;
        try (SwarmTrace trace = SwarmTrace.toFile(tracePath, listener, journaling == Journaling.RESUME && Files.exists(tracePath));
             TrajectoryFile trajectories = durable ? TrajectoryFile.open(runDir.resolve("trajectories.jsonl")) : null) {
            start(node, settings, runId, task, trace, journaling, durable ? trajectories : TrajectoryStore.NONE, done);
            long limit = settings.budget().deadline().plus(settings.lostAfter()).plusSeconds(30).toMillis();
            result = done.get(limit, TimeUnit.MILLISECONDS);
        }
        result = result.withReward(ParlReward.of(result, ParlReward.perf(task, result), 0, settings.parl()));
        Path html = runDir.resolve("trace.html");
        TraceHtml.write(tracePath, html);
        return new Outcome(result, tracePath, html);
    }
}
