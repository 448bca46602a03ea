package dev.agentswarm.workers;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RelayedAnswer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;

/**
 * Every node's {@code /system/answer-relay}: hands a {@link RelayedAnswer} to its requester on this
 * node. A trajectory past an ordinary Artery frame (256 KiB: a long episode's turns, contexts and
 * tool results) would be dropped on the way to another node, and its requester would wait for it
 * in vain; so a worker sends such an answer here instead, on the large-message lane (listed in
 * {@code large-message-destinations}), and the relay delivers it locally.
 */
public final class AnswerRelay {

    private AnswerRelay() {}

    public static Behavior<RelayedAnswer> create() {
        return Behaviors.receiveMessage(r -> {
            r.replyTo().tell(r.trajectory());
            return Behaviors.same();
        });
    }

    /** Starts this node's relay; every node that requests episodes needs one. */
    public static ActorRef<RelayedAnswer> spawn(ActorSystem<?> system) {
        return system.systemActorOf(create(), WorkerProtocol.ANSWER_RELAY, Props.empty());
    }

    private static long serializedBytes(ActorSystem<?> system, Trajectory t, long estimate) {
        try {
            return org.apache.pekko.serialization.SerializationExtension.get(system.classicSystem()).serialize(t).get().length;
        } catch (RuntimeException e) {
            return estimate;
        }
    }

    /**
     * Answers {@code replyTo} with {@code t}: directly when it is on this node or the answer fits
     * an ordinary frame, through the relay of its node otherwise. An answer too large even for the
     * large-message lane is replaced by a {@link StopReason#CRASHED} one that says so and how to
     * fix it, so the requester hears why instead of waiting.
     */
    public static void answer(ActorSystem<?> system, ActorRef<Trajectory> replyTo, Trajectory t, Logger log) {
        if (replyTo.path().address().hasLocalScope()) {
            replyTo.tell(t);
            return;
        }
        Config advanced = system.settings().config().getConfig("pekko.remote.artery.advanced");
        long bytes = t.approxWireBytes();
        // Half a frame: the estimate is rough, and the envelope and replyTo path take room too.
        if (bytes < advanced.getBytes("maximum-frame-size") / 2) {
            replyTo.tell(t);
            return;
        }
        long large = advanced.getBytes("maximum-large-frame-size");
        if (bytes > large / 4) bytes = serializedBytes(system, t, bytes); // near the limit: measure, the estimate is rough
        if (bytes > large - 64 * 1024) {
            log.error("episode {}: its trajectory (about {} bytes) is larger than the large-message frame; raise"
                    + " pekko.remote.artery.advanced.maximum-large-frame-size", t.episodeId(), bytes);
            replyTo.tell(Trajectory.notRun(t.episodeId(), t.groupId(), t.taskId(), StopReason.CRASHED, "the trajectory (about " + bytes
                    + " bytes) is larger than pekko.remote.artery.advanced.maximum-large-frame-size (" + large + " bytes): raise it on"
                    + " every node"));
            return;
        }
        String relay = replyTo.path().address() + "/system/" + WorkerProtocol.ANSWER_RELAY;
        ActorRef<RelayedAnswer> to = ActorRefResolver.get(system).resolveActorRef(relay);
        to.tell(new RelayedAnswer(t, replyTo));
    }
}
