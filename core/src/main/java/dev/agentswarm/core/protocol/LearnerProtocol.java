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

    /**
     * One update from these finished groups (the G trajectories of one task each); {@code dataCursor}
     * is where the sender's task order stands, kept in the checkpoints so a resumed run goes on from there.
     */
    public record TrainBatch(long batchId, List<List<Trajectory>> groups, long dataCursor, ActorRef<BatchTrained> replyTo)
            implements Command {}

    /** Write a checkpoint now (the run is ending); {@code path} in the reply is null when there was nothing to write. */
    public record Checkpoint(long dataCursor, ActorRef<Checkpointed> replyTo) implements Command {}

    public record Checkpointed(long step, String path, String error) implements CborSerializable {}

    /**
     * What an update did: {@code version} is the policy version after it ({@code published} false
     * when no group was worth training on); {@code error} is non-null when the batch was refused.
     */
    public record BatchTrained(long batchId, long step, long version, boolean published, Map<String, Double> metrics, String error)
            implements CborSerializable {}
}
