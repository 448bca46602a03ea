package dev.agentswarm.core.protocol;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * How weights travel ({@code agentswarm.weights}): the chunk size a source cuts them into, and how a
 * fetcher pulls them — at most {@code window} chunk requests outstanding, each asked again when its
 * reply has not come within {@code chunkTimeout}, the fetch given up after {@code maxRetries} such
 * retries of one chunk; every {@code pollInterval} a fetcher asks the known sources for their newest
 * version, in case it missed a notice.
 */
public record WeightsSettings(int chunkSize, int window, Duration chunkTimeout, int maxRetries, Duration pollInterval) {

    public static final String CONFIG_PATH = "agentswarm.weights";
    public static final String FRAME_KEY = "pekko.remote.artery.advanced.maximum-large-frame-size";

    /**
     * Room a chunk reply needs beyond its bytes in one Artery frame: the envelope (recipient and
     * sender paths, manifest) and the CBOR field names take a few hundred bytes; this leaves margin.
     */
    public static final int FRAME_OVERHEAD = 64 * 1024;

    public WeightsSettings {
        if (chunkSize < 1) throw new IllegalArgumentException(CONFIG_PATH + ".chunk-size must be positive, got " + chunkSize);
        if (window < 1) throw new IllegalArgumentException(CONFIG_PATH + ".window must be at least 1, got " + window);
        if (chunkTimeout.isNegative() || chunkTimeout.isZero()) {
            throw new IllegalArgumentException(CONFIG_PATH + ".chunk-timeout must be positive, got " + chunkTimeout);
        }
        if (maxRetries < 0) throw new IllegalArgumentException(CONFIG_PATH + ".max-retries must be >= 0, got " + maxRetries);
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException(CONFIG_PATH + ".poll-interval must be positive, got " + pollInterval);
        }
    }

    /**
     * Reads {@code agentswarm.weights} from {@code root} and checks that a chunk fits in one frame of
     * the large-message lane of the node whose configuration {@code node} is (a chunk that does not
     * would be dropped by Artery with only an ERROR log, and the fetch would never finish).
     */
    public static WeightsSettings fromConfig(Config root, Config node) {
        Config c = root.getConfig(CONFIG_PATH);
        long chunk = c.getMemorySize("chunk-size").toBytes();
        if (chunk > Integer.MAX_VALUE - FRAME_OVERHEAD) {
            throw new IllegalArgumentException(CONFIG_PATH + ".chunk-size = " + chunk + " bytes is too large; use a few MiB");
        }
        WeightsSettings s = new WeightsSettings((int) chunk, c.getInt("window"), c.getDuration("chunk-timeout"), c.getInt("max-retries"),
                c.getDuration("poll-interval"));
        s.checkFits(maxChunkBytes(node));
        return s;
    }

    /** The same, with one configuration for both. */
    public static WeightsSettings fromConfig(Config root) {
        return fromConfig(root, root);
    }

    /** Throws when a chunk of this size does not fit in {@code maxChunkBytes} (see {@link #maxChunkBytes}). */
    public void checkFits(long maxChunkBytes) {
        if (chunkSize > maxChunkBytes) {
            throw new IllegalArgumentException(CONFIG_PATH + ".chunk-size (" + chunkSize + " bytes) does not fit in one frame of the large-message lane: "
                    + FRAME_KEY + " must be at least chunk-size + " + FRAME_OVERHEAD / 1024 + " KiB (it leaves room for " + maxChunkBytes
                    + " bytes); lower chunk-size or raise " + FRAME_KEY);
        }
    }

    /**
     * The largest chunk a node with configuration {@code node} can send or receive: its large frame
     * less {@link #FRAME_OVERHEAD}; unbounded when the node is not remote-enabled (nothing crosses).
     */
    public static long maxChunkBytes(Config node) {
        String provider = node.hasPath("pekko.actor.provider") ? node.getString("pekko.actor.provider") : "local";
        boolean remote = !provider.equals("local") && !provider.endsWith(".LocalActorRefProvider");
        if (!remote || !node.hasPath(FRAME_KEY)) return Long.MAX_VALUE;
        return node.getMemorySize(FRAME_KEY).toBytes() - FRAME_OVERHEAD;
    }
}
