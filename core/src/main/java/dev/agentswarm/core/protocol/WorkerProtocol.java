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
     * hears its progress (null otherwise).
     */
    public record RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                             ActorRef<Trajectory> replyTo, ActorRef<SwarmProtocol.Command> swarm) implements Command {

        public RunEpisode(String episodeId, String groupId, Task task, EpisodeSpec spec, long policyVersionAtLeast,
                          ActorRef<Trajectory> replyTo) {
            this(episodeId, groupId, task, spec, policyVersionAtLeast, replyTo, null);
        }
    }

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
