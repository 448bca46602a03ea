package dev.agentswarm.app;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Counts dead letters on a node: a benchmark or a run that lost messages must say so. */
public final class DeadLetterCounter {

    private DeadLetterCounter() {}

    public static AtomicLong attach(ActorSystem<?> system) {
        AtomicLong count = new AtomicLong();
        Behavior<DeadLetter> counter = Behaviors.receiveMessage(d -> {
            count.incrementAndGet();
            return Behaviors.same();
        });
        var ref = system.systemActorOf(counter, "dead-letter-counter", org.apache.pekko.actor.typed.Props.empty());
        system.eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, ref));
        return count;
    }
}
