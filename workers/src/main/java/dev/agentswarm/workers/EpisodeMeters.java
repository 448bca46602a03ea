package dev.agentswarm.workers;

import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.protocol.StopReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What a node's episodes record, registered once per node: episodes running, episodes finished by
 * stop reason, policy turns and generated tokens. Every stop reason's counter exists from the start
 * (at 0), so a rate over it is defined before the first episode of that kind ends; recording is
 * an increment on a meter held here, never a lookup by name or tag on the episode loop.
 */
public final class EpisodeMeters {

    public static final String RUNNING = "agentswarm.episodes.running";
    public static final String FINISHED = "agentswarm.episodes.finished";
    public static final String TURNS = "agentswarm.episode.turns";
    public static final String TOKENS = "agentswarm.tokens.generated";

    private final AtomicInteger running = new AtomicInteger();
    private final EnumMap<StopReason, Counter> finished = new EnumMap<>(StopReason.class);
    private final Counter turns;
    private final Counter tokens;

    public EpisodeMeters(MeterRegistry registry) {
        Gauge.builder(RUNNING, running, AtomicInteger::get)
                .description("Episodes running on this node now").register(registry);
        for (StopReason r : StopReason.values()) {
            finished.put(r, Counter.builder(FINISHED).tag("stop_reason", r.name().toLowerCase(Locale.ROOT))
                    .description("Episodes answered by this node's workers, by why they stopped").register(registry));
        }
        turns = Counter.builder(TURNS).description("Policy turns taken by this node's episodes (replayed turns of a resumed episode excluded)")
                .register(registry);
        tokens = Counter.builder(TOKENS).baseUnit("tokens")
                .description("Completion tokens the policy generated for this node's episodes; tokens/s is its rate")
                .register(registry);
    }

    /** The node's episode meters. */
    public static EpisodeMeters of(ActorSystem<?> system) {
        return NodeMetrics.get(system).meters(EpisodeMeters.class, EpisodeMeters::new);
    }

    void started() {
        running.incrementAndGet();
    }

    void stopped() {
        running.decrementAndGet();
    }

    void finished(StopReason reason) {
        finished.get(reason).increment();
    }

    /** One live policy turn that produced {@code generated} completion tokens. */
    void turn(int generated) {
        turns.increment();
        if (generated > 0) tokens.increment(generated);
    }
}
