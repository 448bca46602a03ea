package dev.agentswarm.orchestrator.swarm;

import dev.agentswarm.core.protocol.Trajectory;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a durable swarm keeps its sub-agents' trajectories: outside its journal, whose events carry only
 * a reference to each ({@link SwarmEvent.AttemptEnded#trajectoryRef()}), not megabytes of token ids. A
 * resumed swarm reads back the trajectories of the sub-agents that finished before the crash, so its
 * result carries them as the uninterrupted one's does. In a run folder it is the run's trajectory file;
 * in tests, memory shared by the node that crashes and the one that resumes.
 */
public interface TrajectoryStore {

    /**
     * Keeps {@code t} and returns the reference that reads it back, or null when nothing is kept. Called
     * on the orchestrator's thread for every answer: it must not block (a file store writes behind).
     */
    String write(Trajectory t);

    /**
     * The trajectory {@code ref} names, or empty when it is not there (a write the crash cut short: the
     * answer is in the journal regardless). Called once per finished sub-agent when a swarm resumes.
     */
    Optional<Trajectory> read(String ref);

    /** Keeps nothing: events carry no reference, and a resumed swarm's result lacks the trajectories from before its crash. */
    TrajectoryStore NONE = new TrajectoryStore() {
        @Override
        public String write(Trajectory t) {
            return null;
        }

        @Override
        public Optional<Trajectory> read(String ref) {
            return Optional.empty();
        }
    };

    /** Trajectories in this process's memory, referenced as {@code memory#EPISODE_ID} (the last one of an id wins). */
    static TrajectoryStore inMemory() {
        Map<String, Trajectory> kept = new ConcurrentHashMap<>();
        return new TrajectoryStore() {
            @Override
            public String write(Trajectory t) {
                String ref = "memory#" + t.episodeId();
                kept.put(ref, t);
                return ref;
            }

            @Override
            public Optional<Trajectory> read(String ref) {
                return Optional.ofNullable(kept.get(ref));
            }
        };
    }
}
