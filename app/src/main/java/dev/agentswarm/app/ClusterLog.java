package dev.agentswarm.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalTime;
import java.util.HashSet;
import java.util.Set;
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
 * With a members file it also keeps there, after every event, the membership as this node sees it
 * (address, status, reachability, roles), which {@code bin/swarm-cluster status} shows.
 */
public final class ClusterLog extends AbstractBehavior<ClusterEvent.ClusterDomainEvent> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final Consumer<String> out;
    private final Member self;
    private final Path membersFile;

    public static Behavior<ClusterEvent.ClusterDomainEvent> create(Consumer<String> out) {
        return create(out, null);
    }

    /** @param membersFile where the current membership is kept, or null */
    public static Behavior<ClusterEvent.ClusterDomainEvent> create(Consumer<String> out, Path membersFile) {
        return Behaviors.setup(ctx -> {
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf().narrow(), ClusterEvent.MemberEvent.class));
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf().narrow(), ClusterEvent.ReachabilityEvent.class));
            return new ClusterLog(ctx, out, membersFile);
        });
    }

    private ClusterLog(ActorContext<ClusterEvent.ClusterDomainEvent> ctx, Consumer<String> out, Path membersFile) {
        super(ctx);
        this.out = out;
        this.self = Cluster.get(ctx.getSystem()).selfMember();
        this.membersFile = membersFile;
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
        if (membersFile != null) writeMembers();
        return this;
    }

    /** One line per member; written aside and moved into place, so a reader never sees half a file. */
    private void writeMembers() {
        ClusterEvent.CurrentClusterState state = Cluster.get(getContext().getSystem()).state();
        Set<Member> unreachable = new HashSet<>();
        state.getUnreachable().forEach(unreachable::add);
        StringBuilder text = new StringBuilder();
        for (Member m : state.getMembers()) {
            text.append(String.format("%-32s %-8s %-11s %s%s%n", m.address(), m.status().toString().toLowerCase(java.util.Locale.ROOT),
                    unreachable.contains(m) ? "unreachable" : "reachable", roles(m), m.address().equals(self.address()) ? " (this node)" : ""));
        }
        try {
            Path tmp = membersFile.resolveSibling(membersFile.getFileName() + ".tmp");
            Files.writeString(tmp, text);
            Files.move(tmp, membersFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            getContext().getLog().warn("cannot write the members file {}: {}", membersFile, e.toString());
        }
    }

    static String roles(Member m) {
        return m.getRoles().stream().filter(r -> !r.startsWith("dc-")).sorted().toList().toString();
    }
}
