package dev.agentswarm.learner;

import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpoint;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpointed;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.learner.rl.GrpoTrainer;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Improves the policy: each {@link TrainBatch} of finished groups is one GRPO update, after which the
 * new weights are handed to the node's {@link WeightsSource}, which announces them and lets every
 * node's policy server pull them, and the requester is told the step, the version and the metrics. A batch that cannot be trained on
 * (malformed trajectories) is answered with the error and changes nothing. Spawn it on its own
 * dispatcher ({@code agentswarm.learner-dispatcher}, one thread): DJL training blocks.
 */
public final class Learner extends AbstractBehavior<LearnerProtocol.Command> {

    /** Where checkpoints go and how often (in updates); a null run folder or 0 writes none but the requested ones. */
    public record Checkpointing(Path runDir, int every) {}

    private final GrpoTrainer trainer;
    private final ActorRef<WeightsProtocol.SourceCommand> weights;
    private final Checkpointing checkpointing;

    /**
     * @param trainer made on the learner's own thread, at start
     * @param weights the {@link WeightsSource} on this node, which each update's weights are handed to
     */
    public static Behavior<LearnerProtocol.Command> create(Supplier<GrpoTrainer> trainer, ActorRef<WeightsProtocol.SourceCommand> weights,
                                                           Checkpointing checkpointing) {
        return Behaviors.setup(ctx -> new Learner(ctx, trainer.get(), weights, checkpointing));
    }

    private Learner(ActorContext<LearnerProtocol.Command> context, GrpoTrainer trainer, ActorRef<WeightsProtocol.SourceCommand> weights,
                    Checkpointing checkpointing) {
        super(context);
        this.trainer = trainer;
        this.weights = weights;
        this.checkpointing = checkpointing;
    }

    @Override
    public Receive<LearnerProtocol.Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(TrainBatch.class, this::onTrain)
                .onMessage(Checkpoint.class, this::onCheckpoint)
                .onSignal(PostStop.class, s -> {
                    trainer.close();
                    return this;
                })
                .build();
    }

    private Behavior<LearnerProtocol.Command> onTrain(TrainBatch t) {
        GrpoTrainer.Result r;
        try {
            r = trainer.train(t.groups());
        } catch (RuntimeException e) { // a malformed batch, or the engine failing on it: the sender hears why, the policy is unchanged
            getContext().getLog().warn("refused a training batch: {}", e.toString());
            t.replyTo().tell(new BatchTrained(t.batchId(), trainer.steps(), trainer.version(), false, Map.of(), e.getMessage()));
            return this;
        }
        if (r.weights() != null) {
            weights.tell(new WeightsSource.Publish(r.version(), r.weights(), null));
            // A failed periodic checkpoint is logged, not fatal: the update stands and the next checkpoint tries again.
            if (checkpointing.runDir() != null && checkpointing.every() > 0 && r.step() % checkpointing.every() == 0) write(t.dataCursor());
        }
        t.replyTo().tell(new BatchTrained(t.batchId(), r.step(), r.version(), r.weights() != null, r.metrics(), null));
        return this;
    }

    private Behavior<LearnerProtocol.Command> onCheckpoint(Checkpoint c) {
        c.replyTo().tell(checkpointing.runDir() == null ? new Checkpointed(trainer.steps(), null, null) : write(c.dataCursor()));
        return this;
    }

    private Checkpointed write(long dataCursor) {
        try {
            Path p = trainer.checkpoint(checkpointing.runDir(), dataCursor);
            return new Checkpointed(trainer.steps(), p.toString(), null);
        } catch (java.io.IOException | RuntimeException e) {
            getContext().getLog().error("checkpoint of step {} failed", trainer.steps(), e);
            return new Checkpointed(trainer.steps(), null, "checkpoint of step " + trainer.steps() + " failed: " + e.getMessage());
        }
    }
}
