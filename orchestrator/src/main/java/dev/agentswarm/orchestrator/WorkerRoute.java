package dev.agentswarm.orchestrator;

import dev.agentswarm.core.protocol.WorkerProtocol;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;

/** Where episodes run: the sharded worker region of the cluster, or one actor that speaks the worker protocol (tests, swarms as episodes). */
public interface WorkerRoute {

    void tell(String episodeId, WorkerProtocol.Command command);

    /** The worker region: an episode goes to the entity its id hashes to, so a re-send lands on the same one. */
    static WorkerRoute sharded(ActorRef<ShardingEnvelope<WorkerProtocol.Command>> region, int entities) {
        return (id, command) -> region.tell(new ShardingEnvelope<>(WorkerProtocol.entityIdFor(id, entities), command));
    }

    static WorkerRoute direct(ActorRef<WorkerProtocol.Command> worker) {
        return (id, command) -> worker.tell(command);
    }
}
