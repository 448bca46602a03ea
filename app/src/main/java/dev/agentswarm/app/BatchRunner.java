package dev.agentswarm.app;

import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.orchestrator.EpisodePlacements;
import dev.agentswarm.orchestrator.NodeLoss;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;

/**
 * Runs a stream of episodes on the {@code worker} region with at most {@code maxInflight} in
 * flight: a new episode is sent only when one has answered, so a slow policy slows the sender
 * instead of filling mailboxes. Each trajectory goes to {@code onResult} (on this actor's thread)
 * and {@code done} completes with the count once every episode has answered.
 *
 * <p>On a cluster nothing is lost when worker nodes go: what a removed node was running, what a
 * worker gave back while handing off, and what no worker acknowledged within {@code ackTimeout}
 * is sent again under the same id, and only the first answer of an id is passed on.
 */
public final class BatchRunner extends AbstractBehavior<BatchRunner.Command> {

    public interface Command extends NoSerializationVerificationNeeded {}

    private record Answered(Trajectory trajectory) implements Command {}

    private record Receipted(WorkerProtocol.Receipt receipt) implements Command {}

    private record NodeRemoved(String node) implements Command {}

    private record MemberChanged(org.apache.pekko.cluster.ClusterEvent.MemberEvent event) implements Command {}

    private enum CheckAcknowledged implements Command { INSTANCE }

    /** One episode to run. */
    public record Job(String episodeId, String groupId, Task task, EpisodeSpec spec) {}

    private final ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region;
    private final int entities;
    private final Iterator<Job> jobs;
    private final int maxInflight;
    private final Duration ackTimeout;
    private final Consumer<Trajectory> onResult;
    private final CompletableFuture<Long> done;
    private final ActorRef<Trajectory> answers;
    private final ActorRef<WorkerProtocol.Receipt> receipts;
    private final Map<String, Job> inflight = new HashMap<>();
    private final EpisodePlacements placements = new EpisodePlacements();
    private long answered;
    private long resent;

    public static Behavior<Command> create(ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region, int entities,
                                           Iterator<Job> jobs, int maxInflight, Consumer<Trajectory> onResult,
                                           CompletableFuture<Long> done) {
        return create(region, entities, jobs, maxInflight, Duration.ofSeconds(10), onResult, done);
    }

    public static Behavior<Command> create(ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region, int entities,
                                           Iterator<Job> jobs, int maxInflight, Duration ackTimeout, Consumer<Trajectory> onResult,
                                           CompletableFuture<Long> done) {
        if (maxInflight <= 0) throw new IllegalArgumentException("max in-flight must be > 0, got " + maxInflight);
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            Duration every = ackTimeout.dividedBy(4);
            timers.startTimerWithFixedDelay(CheckAcknowledged.INSTANCE, every.compareTo(Duration.ofSeconds(1)) < 0 ? every : Duration.ofSeconds(1));
            return new BatchRunner(ctx, region, entities, jobs, maxInflight, ackTimeout, onResult, done).start();
        }));
    }

    private BatchRunner(ActorContext<Command> ctx, ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region,
                        int entities, Iterator<Job> jobs, int maxInflight, Duration ackTimeout, Consumer<Trajectory> onResult,
                        CompletableFuture<Long> done) {
        super(ctx);
        this.region = region;
        this.entities = entities;
        this.jobs = jobs;
        this.maxInflight = maxInflight;
        this.ackTimeout = ackTimeout;
        this.onResult = onResult;
        this.done = done;
        this.answers = ctx.messageAdapter(Trajectory.class, Answered::new);
        this.receipts = ctx.messageAdapter(WorkerProtocol.Receipt.class, Receipted::new);
        placements.members(NodeLoss.follow(ctx, MemberChanged::new));
    }

    private Behavior<Command> start() {
        fill();
        return checkDone();
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Answered.class, this::onAnswered)
                .onMessage(Receipted.class, this::onReceipt)
                .onMessage(NodeRemoved.class, this::onNodeRemoved)
                .onMessage(MemberChanged.class, this::onMemberChanged)
                .onMessageEquals(CheckAcknowledged.INSTANCE, this::onCheckAcknowledged)
                .build();
    }

    private Behavior<Command> onAnswered(Answered a) {
        String id = a.trajectory().episodeId();
        if (EpisodePlacements.givenBack(a.trajectory())) { // a worker handing off gave it back: it runs again
            resend(id, System.currentTimeMillis() + ackTimeout.toMillis());
            return this;
        }
        if (inflight.remove(id) == null) return this; // the second answer of an episode sent again
        placements.forget(id);
        answered++;
        try {
            onResult.accept(a.trajectory());
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
            return Behaviors.stopped();
        }
        fill();
        return checkDone();
    }

    private Behavior<Command> onReceipt(Receipted r) {
        resend(placements.onReceipt(r.receipt(), System.currentTimeMillis(), ackTimeout.toMillis(), getContext().getLog()));
        return this;
    }

    private Behavior<Command> onMemberChanged(MemberChanged m) {
        if (m.event() instanceof org.apache.pekko.cluster.ClusterEvent.MemberRemoved) {
            return onNodeRemoved(new NodeRemoved(m.event().member().address().toString()));
        }
        resend(placements.onMember(m.event(), System.currentTimeMillis(), getContext().getLog()));
        return this;
    }

    private Behavior<Command> onNodeRemoved(NodeRemoved m) {
        resend(placements.removed(m.node(), System.currentTimeMillis(), getContext().getLog()));
        return this;
    }

    private Behavior<Command> onCheckAcknowledged() {
        long now = System.currentTimeMillis();
        resend(placements.overdue(now, ackTimeout.toMillis(), getContext().getLog()));
        return this;
    }

    private void resend(List<EpisodePlacements.Resend> again) {
        for (EpisodePlacements.Resend r : again) resend(r.episodeId(), r.ackDueMillis());
    }

    private void resend(String episodeId, long ackDueMillis) {
        Job job = inflight.get(episodeId);
        if (job == null) return;
        resent++;
        send(job, ackDueMillis);
    }

    private void fill() {
        while (inflight.size() < maxInflight && jobs.hasNext()) {
            Job job = jobs.next();
            if (inflight.putIfAbsent(job.episodeId(), job) != null) {
                done.completeExceptionally(new IllegalArgumentException("episode id " + job.episodeId() + " is given twice"));
                return;
            }
            send(job, System.currentTimeMillis() + ackTimeout.toMillis());
        }
    }

    private void send(Job job, long ackDueMillis) {
        RunEpisode run = new RunEpisode(job.episodeId(), job.groupId(), job.task(), job.spec(), 0, answers);
        if (placements.tracking()) {
            placements.sent(job.episodeId(), ackDueMillis);
            run = run.withReceipts(receipts);
        }
        region.tell(new ShardingEnvelope<>(WorkerProtocol.entityIdFor(job.episodeId(), entities), run));
    }

    private Behavior<Command> checkDone() {
        if (done.isDone()) return Behaviors.stopped();
        if (inflight.isEmpty() && !jobs.hasNext()) {
            if (resent > 0) getContext().getLog().info("{} episodes answered, {} of them after being sent again", answered, resent);
            done.complete(answered);
            return Behaviors.stopped();
        }
        return this;
    }
}
