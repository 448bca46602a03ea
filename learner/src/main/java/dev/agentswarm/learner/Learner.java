package dev.agentswarm.learner;

import dev.agentswarm.core.CborSerializable;
import dev.agentswarm.core.protocol.PolicyWeights;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.learner.rl.GrpoTrainer;
import java.util.List;
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
 * Improves the policy: each {@link Train} of finished groups is one GRPO update, after which the
 * new weights are published on the {@link PolicyWeights#TOPIC} topic for every policy server and
 * the requester is told the step, the version and the metrics. A batch that cannot be trained on
 * (malformed trajectories) is answered with the error and changes nothing. Spawn it on its own
 * dispatcher ({@code agentswarm.learner-dispatcher}, one thread): DJL training blocks.
 */
public final class Learner extends AbstractBehavior<Learner.Command> {

    public sealed interface Command extends CborSerializable {}

    /** One update from these finished groups (the G trajectories of one task each). */
    public record Train(List<List<Trajectory>> groups, ActorRef<Trained> replyTo) implements Command {}

    /**
     * What an update did: {@code version} is the weights now served ({@code published} false when no
     * group was worth training on); {@code error} is non-null when the batch was refused.
     */
    public record Trained(long step, long version, boolean published, Map<String, Double> metrics, String error)
            implements CborSerializable {}

    private final GrpoTrainer trainer;
    private final ActorRef<Topic.Command<PolicyWeights>> weights;

    /** @param trainer made on the learner's own thread, at start */
    public static Behavior<Command> create(Supplier<GrpoTrainer> trainer, ActorRef<Topic.Command<PolicyWeights>> weights) {
        return Behaviors.setup(ctx -> new Learner(ctx, trainer.get(), weights));
    }

    private Learner(ActorContext<Command> context, GrpoTrainer trainer, ActorRef<Topic.Command<PolicyWeights>> weights) {
        super(context);
        this.trainer = trainer;
        this.weights = weights;
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Train.class, this::onTrain)
                .onSignal(PostStop.class, s -> {
                    trainer.close();
                    return this;
                })
                .build();
    }

    private Behavior<Command> onTrain(Train t) {
        GrpoTrainer.Result r;
        try {
            r = trainer.train(t.groups());
        } catch (IllegalArgumentException e) {
            getContext().getLog().warn("refused a training batch: {}", e.getMessage());
            t.replyTo().tell(new Trained(trainer.steps(), trainer.version(), false, Map.of(), e.getMessage()));
            return this;
        }
        if (r.weights() != null) weights.tell(Topic.publish(new PolicyWeights(r.version(), r.weights())));
        t.replyTo().tell(new Trained(r.step(), r.version(), r.weights() != null, r.metrics(), null));
        return this;
    }
}
