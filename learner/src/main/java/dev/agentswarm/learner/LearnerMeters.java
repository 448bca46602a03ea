package dev.agentswarm.learner;

import dev.agentswarm.core.metrics.NodeMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What the {@link Learner} records on its node: how long each update takes (its count is the
 * number of updates) and the loss of the last one. Registered once per node; the loss is NaN
 * until the first update.
 */
public final class LearnerMeters {

    public static final String STEP_DURATION = "agentswarm.learner.step.duration";
    public static final String LOSS = "agentswarm.learner.loss";

    private final Timer stepDuration;
    /** The last loss as raw double bits: set by the learner's thread, read by a scrape. */
    private final AtomicLong lossBits = new AtomicLong(Double.doubleToRawLongBits(Double.NaN));

    public LearnerMeters(MeterRegistry registry) {
        stepDuration = Timer.builder(STEP_DURATION)
                .description("Wall time of one learner update (loss, backward, optimizer step, weights for publication)").register(registry);
        Gauge.builder(LOSS, lossBits, bits -> Double.longBitsToDouble(bits.get()))
                .description("Loss of the learner's last update").register(registry);
    }

    /** The node's learner meters. */
    public static LearnerMeters of(ActorSystem<?> system) {
        return NodeMetrics.get(system).meters(LearnerMeters.class, LearnerMeters::new);
    }

    /** One update that took {@code nanos} and reported {@code metrics} (its {@code loss}, when there). */
    void step(long nanos, Map<String, Double> metrics) {
        stepDuration.record(nanos, TimeUnit.NANOSECONDS);
        Double loss = metrics.get("loss");
        if (loss != null) lossBits.set(Double.doubleToRawLongBits(loss));
    }
}
