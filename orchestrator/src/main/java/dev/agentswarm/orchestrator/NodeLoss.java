package dev.agentswarm.orchestrator;

import java.util.function.Function;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Tells a requester when a cluster node is gone for good (removed from the membership, after it
 * left or was downed), so it re-sends what ran there at once instead of waiting for a timeout.
 * A node that is merely unreachable is not reported: it may come back, and the split-brain
 * resolver decides; sharding moves its workers only once it is removed.
 */
public final class NodeLoss {

    private NodeLoss() {}

    /**
     * Subscribes {@code ctx}'s actor: it receives {@code message.apply(address)} for every node
     * removed from now on. Does nothing on an actor system that is not a cluster member.
     */
    public static <T> void follow(ActorContext<T> ctx, Function<String, T> message) {
        String provider = ctx.getSystem().settings().config().getString("pekko.actor.provider");
        if (!provider.equals("cluster") && !provider.endsWith(".ClusterActorRefProvider")) return;
        Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(
                ctx.messageAdapter(ClusterEvent.MemberRemoved.class, removed -> message.apply(removed.member().address().toString())),
                ClusterEvent.MemberRemoved.class));
    }
}
