package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node reachable from other machines speaks TLS or says it does not on purpose: plain TCP on a
 * non-loopback canonical or bind host is refused before anything binds (no traffic goes to the
 * addresses used here), TLS or --insecure-cluster lets it start, the latter with a warning.
 */
class ClusterTransportTest {

    private static Config node(String settings) {
        return ConfigFactory.parseString(settings).withFallback(SwarmNode.loadConfig(null));
    }

    @Test
    void loopbackHostsStartOverPlainTcp() {
        for (String host : List.of("127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1")) {
            assertTrue(LoopbackHost.is(host), host);
            assertNull(ClusterTransport.check(node("pekko.remote.artery.canonical.hostname = \"" + host + "\"")), host);
        }
        for (String host : List.of("10.1.2.3", "0.0.0.0", "128.0.0.1", "example.com", "localhost.example.com", "<getHostAddress>", "::2")) {
            assertFalse(LoopbackHost.is(host), host);
        }
    }

    @Test
    void aNonLoopbackHostOverPlainTcpIsRefusedNamingItAndTheWaysOut() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterTransport.check(node("pekko.remote.artery.canonical.hostname = \"10.1.2.3\"")));
        assertTrue(e.getMessage().contains("'10.1.2.3'") && e.getMessage().contains("plain TCP")
                && e.getMessage().contains("conf/cluster-tls.conf") && e.getMessage().contains("--insecure-cluster"), e.getMessage());
        // Pekko's own default canonical host is the machine's address.
        assertThrows(IllegalArgumentException.class,
                () -> ClusterTransport.check(node("pekko.remote.artery.canonical.hostname = \"<getHostAddress>\"")));
    }

    @Test
    void aLoopbackCanonicalHostBoundToEveryInterfaceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterTransport.check(node("pekko.remote.artery.bind.hostname = \"0.0.0.0\"")));
        assertTrue(e.getMessage().contains("'0.0.0.0'") && e.getMessage().contains("bind.hostname"), e.getMessage());
    }

    @Test
    void tlsOrInsecureClusterLetsANonLoopbackNodeStartTheLatterLoudly() {
        assertNull(ClusterTransport.check(node("""
                pekko.remote.artery { transport = tls-tcp, canonical.hostname = "10.1.2.3" }""")));
        String warning = ClusterTransport.check(node("""
                pekko.remote.artery.canonical.hostname = "10.1.2.3"
                agentswarm.node.insecure-cluster = on"""));
        assertTrue(warning.startsWith("WARNING") && warning.contains("10.1.2.3") && warning.contains("anyone"), warning);
    }

    @Test
    void swarmNodeRefusesBeforeStartingAnything() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SwarmNode.start(
                node("pekko.remote.artery.canonical.hostname = \"10.1.2.3\""), system -> {
                    throw new AssertionError("no services are made for a refused node");
                }, null));
        assertTrue(e.getMessage().contains("refusing to start a cluster node on '10.1.2.3'"), e.getMessage());
    }
}
