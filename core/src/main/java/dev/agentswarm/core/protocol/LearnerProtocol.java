package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the rollout coordinator and the learner say to each other. Here, in core, so neither
 * module imports the other: finished groups go in, the update's step, version and metrics come back.
 */
public final class LearnerProtocol {

    private LearnerProtocol() {}

    public interface Command extends CborSerializable {}

    /** One update from these finished groups (the G trajectories of one task each). */
    public record TrainBatch(long batchId, List<List<Trajectory>> groups, ActorRef<BatchTrained> replyTo) implements Command {}

    /**
     * What an update did: {@code version} is the policy version after it ({@code published} false
     * when no group was worth training on); {@code error} is non-null when the batch was refused.
     */
    public record BatchTrained(long batchId, long step, long version, boolean published, Map<String, Double> metrics, String error)
            implements CborSerializable {}
}
