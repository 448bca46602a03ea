package dev.agentswarm.app.metrics;

import dev.agentswarm.core.metrics.NodeMetrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A node's meters in the Prometheus exposition formats: a {@link PrometheusMeterRegistry} added to
 * the node's registry ({@link NodeMetrics}), with the JVM's memory, GC, threads, class loading, CPU
 * and uptime bound to it. Made once per node, on first use (the endpoint's start); it shows what is
 * recorded from then on.
 */
public final class PrometheusExposition {

    /** The text format Prometheus asks for by default. */
    public static final String TEXT_004 = "text/plain; version=0.0.4; charset=utf-8";
    public static final String OPENMETRICS_100 = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private PrometheusExposition(ActorSystem<?> system) {
        NodeMetrics metrics = NodeMetrics.get(system);
        metrics.composite().add(prometheus);
        // Bound on the node's registry, so they carry its node and roles tags like every other meter.
        var registry = metrics.registry();
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        system.getWhenTerminated().thenRun(() -> {
            gc.close(); // its GC notification listeners would outlive the node
            prometheus.close();
        });
    }

    /** The node's exposition, made on first use. */
    public static PrometheusExposition of(ActorSystem<?> system) {
        return NodeMetrics.get(system).meters(PrometheusExposition.class, r -> new PrometheusExposition(system));
    }

    /** The media type answered for an {@code Accept} header: OpenMetrics when it asks for it, else the 0.0.4 text format. */
    public static String contentType(String accept) {
        return accept != null && accept.contains("application/openmetrics-text") ? OPENMETRICS_100 : TEXT_004;
    }

    /** Every meter of the node in {@code contentType} ({@link #TEXT_004} or {@link #OPENMETRICS_100}). */
    public String scrape(String contentType) {
        return prometheus.scrape(contentType);
    }
}
