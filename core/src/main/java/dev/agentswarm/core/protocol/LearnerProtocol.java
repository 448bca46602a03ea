package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the rollout coordinator and the learner say to each other. Here, in core, so neither
 * module imports the other: finished groups go in, the update's step, version and metrics come back.
 *
 * <p>The learner is a cluster singleton that may move to another node (its node died) and come
 * back from the run's latest checkpoint, behind the coordinator. So a batch names its run (the run
 * folder, on storage every learner node reads) and the learner step it expects to start from; a
 * learner that is behind answers {@link Behind} and the coordinator sends again the batches it
 * trained since that checkpoint, which it keeps until a checkpoint covers them.
 */
public final class LearnerProtocol {

    private LearnerProtocol() {}

    public interface Command extends CborSerializable {}

    /** Any step: a batch sent straight to one learner, with no failover to check for. */
    public static final long ANY_STEP = -1;

    /**
     * One update from these finished groups (the G trajectories of one task each); {@code dataCursor}
     * is where the sender's task order stands, kept in the checkpoints so a resumed run goes on from
     * there. {@code step} is the learner step the update starts from ({@link #ANY_STEP}: unchecked);
     * {@code runDir} the run folder the learner opens (its {@code train.conf} and checkpoints) when it
     * has not yet (null: the run the learner was made with). A batch larger than a frame of the
     * large-message lane travels as {@code parts} messages (part {@code part}, 0-based, each with some
     * of the groups), which the learner puts together before it trains ({@link #split}).
     */
    public record TrainBatch(long batchId, List<List<Trajectory>> groups, long dataCursor, long step, String runDir,
                             ActorRef<TrainReply> replyTo, int part, int parts) implements Command {

        public TrainBatch(long batchId, List<List<Trajectory>> groups, long dataCursor, long step, String runDir,
                          ActorRef<TrainReply> replyTo) {
            this(batchId, groups, dataCursor, step, runDir, replyTo, 0, 1);
        }

        public TrainBatch(long batchId, List<List<Trajectory>> groups, long dataCursor, ActorRef<TrainReply> replyTo) {
            this(batchId, groups, dataCursor, ANY_STEP, null, replyTo, 0, 1);
        }

        /**
         * This batch in parts of about {@code maxBytes} each (whole groups; a group larger than that
         * is a part of its own), or itself when it fits in one.
         */
        public List<TrainBatch> split(long maxBytes) {
            List<List<List<Trajectory>>> parts = new java.util.ArrayList<>();
            List<List<Trajectory>> current = new java.util.ArrayList<>();
            long bytes = 0;
            for (List<Trajectory> g : groups) {
                long size = 0;
                for (Trajectory t : g) size += t.approxWireBytes();
                if (!current.isEmpty() && bytes + size > maxBytes) {
                    parts.add(current);
                    current = new java.util.ArrayList<>();
                    bytes = 0;
                }
                current.add(g);
                bytes += size;
            }
            parts.add(current);
            if (parts.size() == 1) return List.of(this);
            List<TrainBatch> out = new java.util.ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                out.add(new TrainBatch(batchId, List.copyOf(parts.get(i)), dataCursor, step, runDir, replyTo, i, parts.size()));
            }
            return out;
        }
    }

    /** Write a checkpoint now (the run is ending); {@code path} in the reply is null when there was nothing to write. */
    public record Checkpoint(long dataCursor, String runDir, ActorRef<Checkpointed> replyTo) implements Command {

        public Checkpoint(long dataCursor, ActorRef<Checkpointed> replyTo) {
            this(dataCursor, null, replyTo);
        }
    }

    public record Checkpointed(long step, String path, String error) implements CborSerializable {}

    /** The learner's answer to a {@link TrainBatch}. */
    public sealed interface TrainReply extends CborSerializable permits BatchTrained, Behind {
        long batchId();
    }

    /**
     * What an update did: {@code version} is the policy version after it ({@code published} false
     * when no group was worth training on); {@code error} is non-null when the batch was refused.
     * {@code checkpointStep} is the step of the learner's latest checkpoint (0: none), and
     * {@code node} the cluster node the learner runs on.
     */
    public record BatchTrained(long batchId, long step, long version, boolean published, Map<String, Double> metrics, String error,
                               long checkpointStep, String node) implements TrainReply {

        public BatchTrained(long batchId, long step, long version, boolean published, Map<String, Double> metrics, String error) {
            this(batchId, step, version, published, metrics, error, 0, null);
        }
    }

    /**
     * The learner is at {@code step} (it came back from a checkpoint), before the batch's: nothing
     * was trained; send the batches after {@code step} again, then this one.
     */
    public record Behind(long batchId, long step, long version, String node) implements TrainReply {}
}
