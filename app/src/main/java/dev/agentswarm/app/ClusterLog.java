package dev.agentswarm.app;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Says what happens to the cluster's membership, one line per event, for an operator watching a
 * node: members that join, leave, become unreachable or reachable again, are downed or removed.
 */
public final class ClusterLog extends AbstractBehavior<ClusterEvent.ClusterDomainEvent> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final Consumer<String> out;
    private final Member self;

    public static Behavior<ClusterEvent.ClusterDomainEvent> create(Consumer<String> out) {
        return Behaviors.setup(ctx -> {
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf().narrow(), ClusterEvent.MemberEvent.class));
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf().narrow(), ClusterEvent.ReachabilityEvent.class));
            return new ClusterLog(ctx, out);
        });
    }

    private ClusterLog(ActorContext<ClusterEvent.ClusterDomainEvent> ctx, Consumer<String> out) {
        super(ctx);
        this.out = out;
        this.self = Cluster.get(ctx.getSystem()).selfMember();
    }

    @Override
    public Receive<ClusterEvent.ClusterDomainEvent> createReceive() {
        return newReceiveBuilder()
                .onMessage(ClusterEvent.MemberUp.class, e -> say("member up", e.member()))
                .onMessage(ClusterEvent.MemberLeft.class, e -> say("member leaving", e.member()))
                .onMessage(ClusterEvent.MemberExited.class, e -> say("member exited", e.member()))
                .onMessage(ClusterEvent.MemberDowned.class, e -> say("member downed", e.member()))
                .onMessage(ClusterEvent.MemberRemoved.class, e -> say("member removed", e.member()))
                .onMessage(ClusterEvent.UnreachableMember.class, e -> say("member unreachable", e.member()))
                .onMessage(ClusterEvent.ReachableMember.class, e -> say("member reachable again", e.member()))
                .onAnyMessage(e -> this)
                .build();
    }

    private Behavior<ClusterEvent.ClusterDomainEvent> say(String what, Member m) {
        out.accept(LocalTime.now().format(TIME) + " " + what + ": " + m.address() + " roles " + roles(m)
                + (m.address().equals(self.address()) ? " (this node)" : ""));
        return this;
    }

    static String roles(Member m) {
        return m.getRoles().stream().filter(r -> !r.startsWith("dc-")).sorted().toList().toString();
    }
}
