package dev.agentswarm.workers;

import dev.agentswarm.core.metrics.NodeMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What the node's {@link PolicyServer} records, registered once per node: requests waiting for a
 * batch slot, sequences per decode step, the policy version it serves and the tokens it generated
 * (for every requester: episodes and any other client of the server). The gauges read values the
 * server sets on its own thread, so a scrape never touches the generator.
 */
public final class PolicyServerMeters {

    public static final String QUEUE_DEPTH = "agentswarm.policy.queue.depth";
    public static final String BATCH_SIZE = "agentswarm.policy.batch.size";
    public static final String VERSION = "agentswarm.policy.version";
    public static final String TOKENS = "agentswarm.policy.tokens.generated";

    private final AtomicInteger queueDepth = new AtomicInteger();
    private final AtomicLong version = new AtomicLong();
    private final DistributionSummary batchSize;
    private final Counter tokens;

    public PolicyServerMeters(MeterRegistry registry) {
        Gauge.builder(QUEUE_DEPTH, queueDepth, AtomicInteger::get)
                .description("Generation requests waiting for a slot in the policy server's batch").register(registry);
        Gauge.builder(VERSION, version, AtomicLong::get)
                .description("Version of the policy weights the node's policy server serves").register(registry);
        batchSize = DistributionSummary.builder(BATCH_SIZE).baseUnit("sequences")
                .description("Sequences decoded together per policy server decode step").register(registry);
        tokens = Counter.builder(TOKENS).baseUnit("tokens")
                .description("Tokens the node's embedded model generated, for every requester").register(registry);
    }

    /** The node's policy server meters. */
    public static PolicyServerMeters of(ActorSystem<?> system) {
        return NodeMetrics.get(system).meters(PolicyServerMeters.class, PolicyServerMeters::new);
    }

    void queued(int depth) {
        queueDepth.set(depth);
    }

    void version(long v) {
        version.set(v);
    }

    /** One generator step: {@code batch} sequences decoded (none: a prefill-only step, not recorded), {@code generated} tokens. */
    void step(int batch, long generated) {
        if (batch > 0) batchSize.record(batch);
        if (generated > 0) tokens.increment(generated);
    }
}
