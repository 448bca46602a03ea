package dev.agentswarm.learner;

import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.PolicyWeights;
import dev.agentswarm.learner.rl.GrpoTrainer;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * Improves the policy: each {@link TrainBatch} of finished groups is one GRPO update, after which the
 * new weights are published on the {@link PolicyWeights#TOPIC} topic for every policy server and
 * the requester is told the step, the version and the metrics. A batch that cannot be trained on
 * (malformed trajectories) is answered with the error and changes nothing. Spawn it on its own
 * dispatcher ({@code agentswarm.learner-dispatcher}, one thread): DJL training blocks.
 */
public final class Learner extends AbstractBehavior<LearnerProtocol.Command> {

    private final GrpoTrainer trainer;
    private final ActorRef<Topic.Command<PolicyWeights>> weights;

    /** @param trainer made on the learner's own thread, at start */
    public static Behavior<LearnerProtocol.Command> create(Supplier<GrpoTrainer> trainer, ActorRef<Topic.Command<PolicyWeights>> weights) {
        return Behaviors.setup(ctx -> new Learner(ctx, trainer.get(), weights));
    }

    private Learner(ActorContext<LearnerProtocol.Command> context, GrpoTrainer trainer, ActorRef<Topic.Command<PolicyWeights>> weights) {
        super(context);
        this.trainer = trainer;
        this.weights = weights;
    }

    @Override
    public Receive<LearnerProtocol.Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(TrainBatch.class, this::onTrain)
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
        } catch (IllegalArgumentException e) {
            getContext().getLog().warn("refused a training batch: {}", e.getMessage());
            t.replyTo().tell(new BatchTrained(t.batchId(), trainer.steps(), trainer.version(), false, Map.of(), e.getMessage()));
            return this;
        }
        if (r.weights() != null) weights.tell(Topic.publish(new PolicyWeights(r.version(), r.weights())));
        t.replyTo().tell(new BatchTrained(t.batchId(), r.step(), r.version(), r.weights() != null, r.metrics(), null));
        return this;
    }
}
