package dev.agentswarm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.orchestrator.swarm.SwarmEntity;
import dev.agentswarm.orchestrator.swarm.SwarmRunIds;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.slf4j.LoggerFactory;

/**
 * Swarms of a cluster: the {@code swarm} region of {@link SwarmEntity} on the nodes with the
 * {@value SwarmEntity#ROLE} role (remembered entities, so a swarm whose node dies starts again on
 * another by itself), their traces in each node's swarm folder, and the client side: start a swarm or
 * attach to one, hear its progress, and wait for its answer wherever it runs by then.
 */
public final class ClusterSwarms {

    private ClusterSwarms() {}

    /**
     * The swarm region on {@code system}: hosted here when this node has the orchestrator role (episodes
     * go to the worker region by {@code workers}), a proxy otherwise. A swarm's trace and its sub-agents'
     * trajectories go to {@code agentswarm.node.swarms-dir/RUN/} (trace.jsonl, trajectories.jsonl) of the
     * node that runs it.
     */
    public static ActorRef<ShardingEnvelope<SwarmEntity.Command>> init(ActorSystem<?> system, Config config, WorkerRoute workers) {
        Path dir = Path.of(config.getString("agentswarm.node.swarms-dir")).toAbsolutePath().normalize();
        SwarmEntity.RunFiles files = new SwarmEntity.RunFiles() {
            @Override
            public SwarmEntity.Opened open(String runId, Consumer<ObjectNode> listener) {
                Path run = runFolder(dir, runId);
                Path file = run.resolve("trace.jsonl");
                SwarmTrace trace = SwarmTrace.toFile(file, listener, Files.exists(file));
                TrajectoryFile trajectories;
                try {
                    trajectories = TrajectoryFile.open(run.resolve("trajectories.jsonl"));
                } catch (IOException e) {
                    trace.close();
                    throw new UncheckedIOException("cannot open the trajectories of swarm " + runId + ": " + e.getMessage(), e);
                }
                return new SwarmEntity.Opened(trace, trajectories, () -> {
                    trace.close();
                    try {
                        trajectories.close();
                    } catch (IOException e) {
                        LoggerFactory.getLogger(ClusterSwarms.class).warn("cannot close the trajectories of swarm {}: {}", runId, e.toString());
                    }
                });
            }

            @Override
            public void finished(String runId) {
                try {
                    Path run = runFolder(dir, runId);
                    TraceHtml.write(run.resolve("trace.jsonl"), run.resolve("trace.html"));
                } catch (RuntimeException e) { // the timeline is a convenience: the swarm's answer does not wait on it
                    LoggerFactory.getLogger(ClusterSwarms.class).warn("cannot draw the timeline of swarm {}: {}", runId, e.toString());
                }
            }
        };
        return ClusterSharding.get(system).init(Entity.of(SwarmEntity.KEY,
                        ctx -> SwarmEntity.create(ctx.getShard(), ctx.getEntityId(), config, workers, files))
                .withRole(SwarmEntity.ROLE)
                .withSettings(ClusterShardingSettings.create(system).withRememberEntities(true)));
    }

    /**
     * Swarm {@code runId}'s folder in {@code swarmsDir}: the run id comes from another member, so it is
     * checked ({@link SwarmRunIds}) and the folder must lie inside {@code swarmsDir} (a second check, should
     * the pattern ever let a separator through).
     */
    static Path runFolder(Path swarmsDir, String runId) {
        Path base = swarmsDir.toAbsolutePath().normalize();
        Path run = base.resolve(SwarmRunIds.check(runId)).normalize();
        if (!run.startsWith(base) || run.equals(base)) {
            throw new IllegalArgumentException("run id '" + runId + "' refused: it names " + run + ", outside the swarms' folder " + base);
        }
        return run;
    }

    /** A new swarm's run id, unique across the cluster: {@code swarm-20261126-171500-} and 128 random bits in hex. */
    public static String newRunId() {
        return SwarmRunIds.random(RunDirs.stamped("swarm"));
    }

    /** What a client saw of a swarm: where it ran (every node, in order) and its answer. */
    public record Outcome(SwarmEntity.Finished finished, List<String> nodes) {}

    /**
     * Starts swarm {@code runId} on {@code task} in the cluster (or, with {@code task} null, attaches to it)
     * and waits up to {@code limit} for its answer; {@code progress} sees its trace's events as they come, and
     * {@code accepted} each node it runs on. The request is sent again until a node accepts it, so a
     * node that dies before it journaled the swarm does not lose it.
     */
    public static Outcome run(SwarmNode node, String runId, Task task, Config swarmConfig, List<String> tools,
                              Consumer<ObjectNode> progress, Consumer<SwarmEntity.Accepted> accepted, Duration limit)
            throws TimeoutException, InterruptedException {
        SwarmRunIds.check(runId);
        // Finished, or Unknown for an attach to a run id with no swarm, or Refused.
        CompletableFuture<SwarmEntity.Update> ended = new CompletableFuture<>();
        List<String> nodes = new CopyOnWriteArrayList<>();
        ActorRef<SwarmEntity.Update> client = node.system().systemActorOf(Behaviors.receive(SwarmEntity.Update.class)
                .onMessage(SwarmEntity.Accepted.class, a -> {
                    if (nodes.isEmpty() || !nodes.get(nodes.size() - 1).equals(a.node())) {
                        nodes.add(a.node());
                        accepted.accept(a);
                    }
                    return Behaviors.same();
                })
                .onMessage(SwarmEntity.Progress.class, p -> {
                    progress.accept((ObjectNode) Json.parse(p.event()));
                    return Behaviors.same();
                })
                .onAnyMessage(end -> {
                    ended.complete(end);
                    return Behaviors.stopped();
                })
                .build(), "swarm-client-" + runId + "-" + System.nanoTime(), Props.empty());
        SwarmEntity.Command request = task == null ? new SwarmEntity.Attach(client)
                : new SwarmEntity.Start(task, SwarmEntity.clientConfig(swarmConfig), tools, client);
        long deadline = System.nanoTime() + limit.toNanos();
        // Sent again until a node accepts it; the client actor stops itself at the end (one that gives up stays to its node's end).
        while (true) {
            if (nodes.isEmpty()) node.swarmRegion().tell(new ShardingEnvelope<>(runId, request));
            SwarmEntity.Update end;
            try {
                end = ended.get(2, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("swarm " + runId + " did not answer within " + limit.toSeconds() + " s"
                            + (nodes.isEmpty() ? " and no orchestrator node accepted it" : "; it ran on " + nodes));
                }
                continue;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause()); // never completed exceptionally
            }
            if (end instanceof SwarmEntity.Unknown u) throw new IllegalArgumentException(u.reason());
            if (end instanceof SwarmEntity.Refused r) throw new IllegalArgumentException(r.reason());
            return new Outcome((SwarmEntity.Finished) end, List.copyOf(nodes));
        }
    }
}
