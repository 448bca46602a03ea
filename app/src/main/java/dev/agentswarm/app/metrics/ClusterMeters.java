package dev.agentswarm.app.metrics;

import dev.agentswarm.core.metrics.NodeMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Locale;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * The cluster as this node sees it: members by status ({@code agentswarm.cluster.members}, tag
 * {@code status}: joining, weakly_up, up, leaving, exiting, down) and members this node cannot reach ({@code agentswarm.cluster.members.unreachable};
 * an unreachable member also counts under its status, so the statuses sum to the membership).
 * Gauges read the cluster's current state when scraped: nothing is recorded on a cluster event.
 */
public final class ClusterMeters {

    public static final String MEMBERS = "agentswarm.cluster.members";
    public static final String UNREACHABLE = "agentswarm.cluster.members.unreachable";

    private static final List<MemberStatus> STATUSES = List.of(MemberStatus.joining(), MemberStatus.weaklyUp(), MemberStatus.up(),
            MemberStatus.leaving(), MemberStatus.exiting(), MemberStatus.down());

    private ClusterMeters() {}

    /** Registers the gauges on the node's registry; call once per node. */
    public static void bind(ActorSystem<?> system) {
        Cluster cluster = Cluster.get(system);
        MeterRegistry registry = NodeMetrics.get(system).registry();
        for (MemberStatus status : STATUSES) {
            Gauge.builder(MEMBERS, cluster, c -> count(c, status)).tag("status", name(status)).strongReference(true)
                    .description("Cluster members this node sees, by membership status").register(registry);
        }
        Gauge.builder(UNREACHABLE, cluster, c -> c.state().getUnreachable().size()).strongReference(true)
                .description("Cluster members this node's failure detector cannot reach").register(registry);
    }

    private static int count(Cluster cluster, MemberStatus status) {
        int n = 0;
        for (Member m : cluster.state().getMembers()) if (m.status().equals(status)) n++;
        return n;
    }

    /** {@code WeaklyUp} → {@code weakly_up}. */
    static String name(MemberStatus status) {
        return status.toString().replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }
}
