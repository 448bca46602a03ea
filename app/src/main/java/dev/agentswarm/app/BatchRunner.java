package dev.agentswarm.app;

import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.util.Iterator;
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
 */
public final class BatchRunner extends AbstractBehavior<BatchRunner.Command> {

    public interface Command extends NoSerializationVerificationNeeded {}

    private record Answered(Trajectory trajectory) implements Command {}

    /** One episode to run. */
    public record Job(String episodeId, String groupId, Task task, EpisodeSpec spec) {}

    private final ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region;
    private final int entities;
    private final Iterator<Job> jobs;
    private final int maxInflight;
    private final Consumer<Trajectory> onResult;
    private final CompletableFuture<Long> done;
    private final ActorRef<Trajectory> answers;
    private int inflight;
    private long answered;

    public static Behavior<Command> create(ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region, int entities,
                                           Iterator<Job> jobs, int maxInflight, Consumer<Trajectory> onResult,
                                           CompletableFuture<Long> done) {
        if (maxInflight <= 0) throw new IllegalArgumentException("max in-flight must be > 0, got " + maxInflight);
        return Behaviors.setup(ctx -> new BatchRunner(ctx, region, entities, jobs, maxInflight, onResult, done).start());
    }

    private BatchRunner(ActorContext<Command> ctx, ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region,
                        int entities, Iterator<Job> jobs, int maxInflight, Consumer<Trajectory> onResult,
                        CompletableFuture<Long> done) {
        super(ctx);
        this.region = region;
        this.entities = entities;
        this.jobs = jobs;
        this.maxInflight = maxInflight;
        this.onResult = onResult;
        this.done = done;
        this.answers = ctx.messageAdapter(Trajectory.class, Answered::new);
    }

    private Behavior<Command> start() {
        fill();
        return checkDone();
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder().onMessage(Answered.class, this::onAnswered).build();
    }

    private Behavior<Command> onAnswered(Answered a) {
        inflight--;
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

    private void fill() {
        while (inflight < maxInflight && jobs.hasNext()) {
            Job job = jobs.next();
            RunEpisode run = new RunEpisode(job.episodeId(), job.groupId(), job.task(), job.spec(), 0, answers);
            region.tell(new ShardingEnvelope<>(WorkerProtocol.entityIdFor(job.episodeId(), entities), run));
            inflight++;
        }
    }

    private Behavior<Command> checkDone() {
        if (inflight == 0 && !jobs.hasNext()) {
            done.complete(answered);
            return Behaviors.stopped();
        }
        return this;
    }
}
