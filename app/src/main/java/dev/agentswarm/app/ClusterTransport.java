package dev.agentswarm.app;

import com.typesafe.config.Config;

/**
 * Whether a node may start with its transport: a node that other machines can reach must speak TLS
 * with the cluster's certificates, because a cluster member is trusted with everything the cluster does
 * (it may send tools' calls to run, start swarms, train, publish weights). Plain TCP is for the loopback
 * interface, where only this machine's processes reach the node; anywhere else it is refused unless
 * {@code agentswarm.node.insecure-cluster} ({@code swarm node --insecure-cluster}) says the network
 * itself is trusted, and then said loudly. Checked from the configuration alone, before anything binds.
 */
public final class ClusterTransport {

    static final String INSECURE_KEY = "agentswarm.node.insecure-cluster";
    static final String CANONICAL = "pekko.remote.artery.canonical.hostname";
    static final String BIND = "pekko.remote.artery.bind.hostname";
    static final String TRANSPORT = "pekko.remote.artery.transport";

    private ClusterTransport() {}

    /**
     * Null when {@code config}'s node may start as it is, else the warning to print (insecure by choice);
     * throws {@link IllegalArgumentException} naming the address and the two ways out when it may not.
     */
    public static String check(Config config) {
        if (config.getString(TRANSPORT).equals("tls-tcp")) return null;
        String exposed = exposedHost(config);
        if (exposed == null) return null;
        if (config.getBoolean(INSECURE_KEY)) {
            return "WARNING: this node listens on " + exposed + " over plain TCP (--insecure-cluster): anyone who reaches that"
                    + " address can join the cluster and run tools, read its swarms and publish weights. Use it only on a network"
                    + " you trust entirely; otherwise use TLS (--config conf/cluster-tls.conf).";
        }
        throw new IllegalArgumentException("refusing to start a cluster node on " + exposed + " over plain TCP ("
                + TRANSPORT + " = " + config.getString(TRANSPORT) + "): any process that reaches it could join the cluster."
                + " Use TLS (--config conf/cluster-tls.conf, certificates from bin/swarm-cluster certs), or --insecure-cluster"
                + " (" + INSECURE_KEY + " = on) on a network you trust entirely");
    }

    /** The canonical or bind host when it is not a loopback one (null when neither is exposed). */
    private static String exposedHost(Config config) {
        String canonical = config.getString(CANONICAL);
        if (!LoopbackHost.is(canonical)) return "'" + canonical + "' (" + CANONICAL + ")";
        // Pekko binds to the canonical host unless told otherwise; a bind host of 0.0.0.0 listens on every interface.
        if (config.hasPath(BIND)) {
            String bind = config.getString(BIND);
            if (!bind.isEmpty() && !LoopbackHost.is(bind)) return "'" + bind + "' (" + BIND + ")";
        }
        return null;
    }
}
