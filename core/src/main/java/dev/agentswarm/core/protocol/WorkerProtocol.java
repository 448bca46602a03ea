package dev.agentswarm.core.protocol;

import dev.agentswarm.core.CborSerializable;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The protocol of the {@code worker} sharding region. It lives in core so that whoever asks for
 * episodes (the app, the orchestrator, the rollout coordinator) never imports the workers module:
 * they build the entity key from {@link #ENTITY_TYPE} and {@link Command}.
 */
public final class WorkerProtocol {

    /** Name of the sharded entity type; also the path of its region, {@code /system/sharding/worker}. */
    public static final String ENTITY_TYPE = "worker";

    private WorkerProtocol() {}

    public interface Command extends CborSerializable {}

    /**
     * Run one episode and reply to {@code replyTo} with its {@link Trajectory}, exactly once.
     * {@code policyVersionAtLeast} lets a coordinator refuse to sample with stale weights. {@code swarm}
     * is set when a swarm runs the episode: it answers the episode's {@code spawn_subagents} calls and
     * hears its progress (null otherwise). {@code receipts}, when set, hears where the episode runs
     * ({@link Accepted}) and when a worker gives it back unanswered ({@link Released}): what a
     * requester needs to re-send at once when a node dies or hands its workers off. {@code history},
     * when not empty, is what the episode did before a crash: it resumes after it ({@link EpisodeHistory}).
     */
    public record RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                             ActorRef<Trajectory> replyTo, ActorRef<SwarmProtocol.Command> swarm, ActorRef<Receipt> receipts,
                             EpisodeHistory history)
            implements Command {

        public RunEpisode {
            history = history == null ? EpisodeHistory.NONE : history;
        }

        public RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                          ActorRef<Trajectory> replyTo, ActorRef<SwarmProtocol.Command> swarm, ActorRef<Receipt> receipts) {
            this(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, swarm, receipts, null);
        }

        public RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                          ActorRef<Trajectory> replyTo, ActorRef<SwarmProtocol.Command> swarm) {
            this(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, swarm, null, null);
        }

        public RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                          ActorRef<Trajectory> replyTo) {
            this(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, null, null, null);
        }

        public RunEpisode withReceipts(ActorRef<Receipt> to) {
            return new RunEpisode(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, swarm, to, history);
        }

        /** The same episode, resuming after {@code done}. */
        public RunEpisode withHistory(EpisodeHistory done) {
            return new RunEpisode(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, swarm, receipts, done);
        }
    }

    /**
     * How the error of a worker's {@link StopReason#CANCELLED} answer ends when it gave an episode
     * back unanswered to a requester that asked for no receipts: send it again.
     */
    public static final String GIVEN_BACK = "send the episode again";

    /** Name of every node's answer relay, {@code /system/answer-relay}, on the large-message lane. */
    public static final String ANSWER_RELAY = "answer-relay";

    /**
     * An answer too large for an ordinary Artery frame (a long episode's trajectory), sent to the
     * answer relay of the requester's node over the large-message lane; the relay hands it to
     * {@code replyTo} there, as if the worker had answered directly.
     */
    public record RelayedAnswer(Trajectory trajectory, ActorRef<Trajectory> replyTo) implements CborSerializable {}

    /** What a worker tells a requester about an episode besides its answer. */
    public sealed interface Receipt extends CborSerializable permits Accepted, Released {
        String episodeId();
    }

    /**
     * The episode runs (or already ran) on the worker of cluster node {@code node} (its address);
     * a re-sent duplicate is acknowledged again. If that node leaves the cluster before the answer
     * comes, the episode is lost with it and must be sent again.
     */
    public record Accepted(String episodeId, String node) implements Receipt {}

    /**
     * The worker gave the episode back without an answer and will never send one (its shard is
     * being handed to another node); send it again, under the same id.
     */
    public record Released(String episodeId, String reason) implements Receipt {}

    /** Stop a running episode; it replies with what it has, stop reason {@link StopReason#CANCELLED}. */
    public record CancelEpisode(String episodeId, String reason) implements Command {}

    /**
     * Which worker entity runs an episode: a stable hash of its id over {@code entities} entities,
     * so a re-sent episode lands on the same entity (which answers an id at most once).
     */
    public static String entityIdFor(String episodeId, int entities) {
        if (entities <= 0) throw new IllegalArgumentException("entities must be > 0, got " + entities);
        return "w" + Math.floorMod(murmurMix(episodeId.hashCode()), entities);
    }

    private static int murmurMix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }
}
