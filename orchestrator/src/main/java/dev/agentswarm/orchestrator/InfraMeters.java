package dev.agentswarm.orchestrator;

import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.protocol.InfraFailure;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What a training run's infrastructure failures cost, on the coordinator's node ({@code /metrics}):
 * episodes run again under a new attempt, and groups dropped whole when retries ran out, each by
 * cause. Every cause's counter exists from the start (at 0), so a rate over it is defined at once.
 */
final class InfraMeters {

    static final String RETRIED = "agentswarm.train.infra.retried";
    static final String DROPPED = "agentswarm.train.groups.dropped.infra";

    private final EnumMap<InfraFailure, Counter> retried = new EnumMap<>(InfraFailure.class);
    private final EnumMap<InfraFailure, Counter> dropped = new EnumMap<>(InfraFailure.class);

    InfraMeters(MeterRegistry registry) {
        for (InfraFailure cause : InfraFailure.values()) {
            retried.put(cause, Counter.builder(RETRIED).tag("cause", cause.label())
                    .description("Training episodes that failed for their infrastructure and ran again, by cause").register(registry));
            dropped.put(cause, Counter.builder(DROPPED).tag("cause", cause.label())
                    .description("Training groups dropped whole because an episode kept failing for its infrastructure, by cause")
                    .register(registry));
        }
    }

    static InfraMeters of(ActorSystem<?> system) {
        return NodeMetrics.get(system).meters(InfraMeters.class, InfraMeters::new);
    }

    void retried(InfraFailure cause) {
        retried.get(cause).increment();
    }

    void dropped(InfraFailure cause) {
        dropped.get(cause).increment();
    }
}
