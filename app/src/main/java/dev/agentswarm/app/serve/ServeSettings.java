package dev.agentswarm.app.serve;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;

/**
 * What {@code swarm serve} lets one client hold ({@code agentswarm.serve} in app's reference.conf,
 * which says why each default is what it is).
 */
public record ServeSettings(int maxN, Duration idleTimeout, Duration keepAlive, long streamBufferBytes,
                            List<String> swarmTools, int maxConcurrentSwarms, Duration swarmRetryAfter, Duration keepRuns) {

    public ServeSettings {
        if (maxN < 1 || maxN > ChatRequest.MAX_N) {
            throw new IllegalArgumentException("agentswarm.serve.max-n must be in 1.." + ChatRequest.MAX_N + ", got " + maxN);
        }
        if (keepAlive.isZero() || keepAlive.isNegative() || keepAlive.compareTo(idleTimeout) >= 0) {
            throw new IllegalArgumentException("agentswarm.serve.keep-alive must be positive and shorter than idle-timeout ("
                    + idleTimeout + "), got " + keepAlive);
        }
        if (streamBufferBytes < 1024) {
            throw new IllegalArgumentException("agentswarm.serve.stream-buffer must be at least 1 KiB, got " + streamBufferBytes);
        }
        if (maxConcurrentSwarms < 1) {
            throw new IllegalArgumentException("agentswarm.serve.swarm.max-concurrent must be >= 1, got " + maxConcurrentSwarms);
        }
        if (keepRuns.isNegative()) throw new IllegalArgumentException("agentswarm.serve.swarm.keep-runs must be >= 0, got " + keepRuns);
        swarmTools = List.copyOf(swarmTools);
    }

    public static ServeSettings fromConfig(Config config) {
        Config c = config.getConfig("agentswarm.serve");
        return new ServeSettings(c.getInt("max-n"), c.getDuration("idle-timeout"), c.getDuration("keep-alive"),
                c.getBytes("stream-buffer"), c.getStringList("swarm.tools"), c.getInt("swarm.max-concurrent"),
                c.getDuration("swarm.retry-after"), c.getDuration("swarm.keep-runs"));
    }

    /** The defaults of app's reference.conf. */
    public static ServeSettings defaults() {
        return fromConfig(ConfigFactory.defaultReference());
    }
}
