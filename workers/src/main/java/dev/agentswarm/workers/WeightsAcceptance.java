package dev.agentswarm.workers;

import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import dev.agentswarm.policy.model.CausalLm;
import java.util.function.Predicate;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * Which announced weights a node's {@link WeightsFetcher} takes. Any member can publish on the notices'
 * topic or register as a weights source, and a worker must not be able to make every node serve its
 * weights: a notice counts only when its source is an actor of a member with the {@value #LEARNER_ROLE}
 * role ({@code fromLearner}). And the bytes are allocated when a fetch starts, so an announced 2 GiB
 * would be taken from the heap before a single chunk came: a notice counts only up to {@code maxBytes},
 * what the served model implies ({@link #maxBytes(CausalLm)}).
 */
public record WeightsAcceptance(Predicate<ActorRef<?>> fromLearner, long maxBytes) {

    /** The role of the nodes whose weights sources are followed (the nodes that run the learner). */
    public static final String LEARNER_ROLE = "learner";

    /** Anything, of any size: for tests and benchmarks whose sources are their own. */
    public static final WeightsAcceptance ANY = new WeightsAcceptance(ref -> true, Long.MAX_VALUE);

    /** The header's metadata (version, the model's shape) and its framing: a few hundred bytes, with ample room. */
    private static final long HEADER_ALLOWANCE = 64 * 1024;
    /** A tensor's entry in the header: its name (under 100 characters here), dtype, shape and offsets. */
    private static final long HEADER_PER_TENSOR = 1024;

    /** Sources of learner members on {@code system}'s cluster, versions of at most {@code maxBytes}. */
    public static WeightsAcceptance learners(ActorSystem<?> system, long maxBytes) {
        return new WeightsAcceptance(learnerMembers(system), maxBytes);
    }

    /** Null when {@code n} is taken, else why not (naming its source). */
    public String refusal(WeightsNotice n) {
        if (!fromLearner.test(n.source())) {
            return "ignored weights version " + n.version() + " announced with source " + n.source() + ": not an actor of a cluster"
                    + " member with the " + LEARNER_ROLE + " role";
        }
        if (n.totalBytes() > maxBytes) {
            return "refused weights version " + n.version() + " from " + n.source() + ": " + n.totalBytes() + " bytes announced, more"
                    + " than the " + maxBytes + " bytes this node's model implies (its parameters as F32 and a header); is the learner"
                    + " training another model?";
        }
        return null;
    }

    /**
     * Whether an actor belongs to a member with the {@value #LEARNER_ROLE} role, as {@code system}'s view
     * of the membership says at the time (a source not seen yet is asked again at the fetcher's next
     * poll). Outside a cluster there are no other members: only the system's own actors.
     */
    static Predicate<ActorRef<?>> learnerMembers(ActorSystem<?> system) {
        if (!system.settings().config().getString("pekko.actor.provider").matches("cluster|.*\\.ClusterActorRefProvider")) {
            return WeightsProtocol::inThisJvm;
        }
        Cluster cluster = Cluster.get(system);
        return ref -> {
            Address address = ref.path().address();
            if (address.hasLocalScope()) return cluster.selfMember().hasRole(LEARNER_ROLE);
            for (Member m : cluster.state().getMembers()) {
                if (m.address().equals(address)) return m.hasRole(LEARNER_ROLE);
            }
            return false;
        };
    }

    /**
     * The most bytes a version of {@code model}'s weights takes as the learner publishes them
     * (safetensors, F32): every parameter's four bytes, and room for the header (each tensor's name,
     * shape and offsets, and the metadata).
     */
    public static long maxBytes(CausalLm model) {
        long bytes = HEADER_ALLOWANCE;
        for (ai.djl.nn.Parameter p : model.namedParameters().values()) bytes += 4 * p.getArray().size() + HEADER_PER_TENSOR;
        return bytes;
    }
}
