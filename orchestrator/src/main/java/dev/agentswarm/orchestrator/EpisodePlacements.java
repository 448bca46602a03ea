package dev.agentswarm.orchestrator;

import dev.agentswarm.core.protocol.WorkerProtocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Where a requester's in-flight episodes run, from the workers' receipts: which node accepted each
 * one, and which no worker has acknowledged yet. With it a requester re-sends at once what a node
 * that left the cluster was running, and re-sends what went unacknowledged for too long (a message
 * routed to a node that was dying, a region still moving its shards). No mailbox: the requester's
 * actor calls it.
 *
 * <p>Receipts are asked for only while the cluster has another member: alone, this node's workers
 * die with the requester, and a one-node run (the embedded default) pays nothing for them. A worker
 * that gives back an episode it got without receipts answers it CANCELLED; a requester that never
 * cancels takes that as given back too ({@link #givenBack}).
 */
public final class EpisodePlacements {

    /**
     * How soon an episode re-sent because its node left must be acknowledged. Sharding learns of the
     * removal a moment after the requester may, so the first re-send can still go to the dead node's
     * region and vanish; the second, this much later, finds the workers' new home.
     */
    public static final long LOST_RESEND_ACK_MILLIS = 2000;

    private final Map<String, String> nodeOf = new HashMap<>();
    private final java.util.Set<String> members = new java.util.HashSet<>();
    /** Sent and not yet acknowledged, with the time by which a receipt is due. Few: workers acknowledge at once. */
    private final Map<String, Long> unacknowledged = new HashMap<>();

    /** The cluster's members Up now, as {@link NodeLoss#follow} returned them. */
    public void members(java.util.Set<String> up) {
        members.addAll(up);
    }

    /**
     * Whether receipts are worth asking for: another member could run, or lose, an episode (or the
     * membership is not known: an actor system that is no cluster member, as in tests, gets them).
     */
    public boolean tracking() {
        return members.size() != 1;
    }

    /** An episode to send again, and by when a worker's receipt for it is due. */
    public record Resend(String episodeId, long ackDueMillis) {}

    /**
     * A change of the membership: a member that is Up counts, one that was removed takes its
     * episodes with it, which go again (saying on {@code log} how many).
     */
    public List<Resend> onMember(org.apache.pekko.cluster.ClusterEvent.MemberEvent event, long nowMillis, org.slf4j.Logger log) {
        String node = event.member().address().toString();
        if (event instanceof org.apache.pekko.cluster.ClusterEvent.MemberUp) members.add(node);
        if (!(event instanceof org.apache.pekko.cluster.ClusterEvent.MemberRemoved)) return List.of();
        return removed(node, nowMillis, log);
    }

    /** Member {@code node} was removed: its episodes go again, each due a receipt {@link #LOST_RESEND_ACK_MILLIS} from now. */
    public List<Resend> removed(String node, long nowMillis, org.slf4j.Logger log) {
        members.remove(node);
        List<String> lost = lostWith(node);
        if (!lost.isEmpty()) log.warn("node {} left the cluster with {} episodes: sending them again", node, lost.size());
        return lost.stream().map(id -> new Resend(id, nowMillis + LOST_RESEND_ACK_MILLIS)).toList();
    }

    /** A worker's receipt: an Accepted is recorded, a Released episode goes again. */
    public List<Resend> onReceipt(WorkerProtocol.Receipt receipt, long nowMillis, long ackTimeoutMillis, org.slf4j.Logger log) {
        String again = receipt(receipt);
        if (again == null) return List.of();
        log.info("episode {} given back ({}): sending it again", again, receipt);
        return List.of(new Resend(again, nowMillis + ackTimeoutMillis));
    }

    /** Episodes whose receipt is overdue: they go again. */
    public List<Resend> overdue(long nowMillis, long ackTimeoutMillis, org.slf4j.Logger log) {
        List<String> silent = unacknowledged(nowMillis);
        if (!silent.isEmpty()) log.info("{} episodes not acknowledged by a worker in time: sending them again", silent.size());
        return silent.stream().map(id -> new Resend(id, nowMillis + ackTimeoutMillis)).toList();
    }

    /** An answer that is a worker giving back, unanswered, an episode sent without receipts (see the class comment). */
    public static boolean givenBack(dev.agentswarm.core.protocol.Trajectory t) {
        return t.stopReason() == dev.agentswarm.core.protocol.StopReason.CANCELLED && t.turns().isEmpty()
                && t.error() != null && t.error().endsWith(WorkerProtocol.GIVEN_BACK);
    }

    /** The episode was sent (again): it waits for a worker's receipt until {@code dueMillis}. */
    public void sent(String episodeId, long dueMillis) {
        nodeOf.remove(episodeId);
        unacknowledged.put(episodeId, dueMillis);
    }

    /** A worker on {@code node} accepted it; ignored for an episode no longer tracked (answered already). */
    public void accepted(String episodeId, String node) {
        if (unacknowledged.remove(episodeId) != null || nodeOf.containsKey(episodeId)) nodeOf.put(episodeId, node);
    }

    /**
     * Records a worker's receipt; returns the id to send again for a {@link WorkerProtocol.Released}
     * episode, null for an {@link WorkerProtocol.Accepted} one.
     */
    public String receipt(WorkerProtocol.Receipt receipt) {
        if (receipt instanceof WorkerProtocol.Accepted a) {
            accepted(a.episodeId(), a.node());
            return null;
        }
        return receipt.episodeId();
    }

    /** Answered, given up or cancelled: no longer tracked. */
    public void forget(String episodeId) {
        nodeOf.remove(episodeId);
        unacknowledged.remove(episodeId);
    }

    /** The episodes that ran on {@code node}, which left the cluster; they are no longer placed and must be sent again. */
    public List<String> lostWith(String node) {
        List<String> lost = new ArrayList<>();
        for (Iterator<Map.Entry<String, String>> it = nodeOf.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, String> e = it.next();
            if (e.getValue().equals(node)) {
                lost.add(e.getKey());
                it.remove();
            }
        }
        return lost;
    }

    /** Episodes whose receipt was due by {@code nowMillis} and never came. */
    public List<String> unacknowledged(long nowMillis) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : unacknowledged.entrySet()) if (e.getValue() <= nowMillis) out.add(e.getKey());
        return out;
    }

    /** The node an episode was accepted on, or null. */
    public String nodeOf(String episodeId) {
        return nodeOf.get(episodeId);
    }

    /** Episodes tracked, acknowledged or not. */
    public int size() {
        return nodeOf.size() + unacknowledged.size();
    }
}
