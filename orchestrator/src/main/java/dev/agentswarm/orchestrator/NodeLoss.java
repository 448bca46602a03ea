package dev.agentswarm.orchestrator;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Tells a requester how the cluster's membership changes, so it re-sends at once what a node that
 * is gone for good (removed, after it left or was downed) was running, instead of waiting for a
 * timeout. A node that is merely unreachable is not reported: it may come back, and the split-brain
 * resolver decides; sharding moves its workers only once it is removed.
 */
public final class NodeLoss {

    private NodeLoss() {}

    /**
     * Subscribes {@code ctx}'s actor to member events ({@code message.apply(event)} for each from now
     * on) and returns the members Up now. Does nothing, and returns an empty set, on an actor system
     * that is not a cluster member.
     */
    public static <T> Set<String> follow(ActorContext<T> ctx, Function<ClusterEvent.MemberEvent, T> message) {
        String provider = ctx.getSystem().settings().config().getString("pekko.actor.provider");
        if (!provider.equals("cluster") && !provider.endsWith(".ClusterActorRefProvider")) return Set.of();
        Cluster cluster = Cluster.get(ctx.getSystem());
        cluster.subscriptions().tell(Subscribe.create(ctx.messageAdapter(ClusterEvent.MemberEvent.class, message::apply),
                ClusterEvent.MemberEvent.class));
        Set<String> up = new HashSet<>();
        for (Member m : cluster.state().getMembers()) if (m.status() == MemberStatus.up()) up.add(m.address().toString());
        return up;
    }
}
