package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** swarm node refuses bad input with a clear message, before or while it starts, and leaves nothing running. */
class NodeCliTest {

    @Test
    void anUnknownRoleIsRefusedNamingTheKnownOnes() {
        CliTest.Result r = swarm("node", "--roles", "worker,trainer", "--port", "0");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("unknown role 'trainer'") && r.err().contains("orchestrator, worker, learner"), r.err());
    }

    @Test
    void aSeedThatIsNotASwarmNodeAddressIsRefused() {
        CliTest.Result r = swarm("node", "--seed", "pekko://other@127.0.0.1:2551", "--port", "0");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("not a swarm node address") && r.err().contains("pekko://swarm@HOST:PORT"), r.err());
    }

    @Test
    void aLatencyIsForAScriptedPolicyAndTheOracleIsForEval() {
        CliTest.Result latency = swarm("node", "--latency-ms", "200", "--port", "0");
        assertNotEquals(0, latency.exit());
        assertTrue(latency.err().contains("--latency-ms applies to a --script policy"), latency.err());
        CliTest.Result oracle = swarm("node", "--policy", "oracle", "--port", "0");
        assertNotEquals(0, oracle.exit());
        assertTrue(oracle.err().contains("--policy oracle belongs to swarm eval"), oracle.err());
    }

    @Test
    void aNonLoopbackHostOverPlainTcpIsRefusedAtStart() {
        // Refused before anything binds: no traffic goes to 10.1.2.3.
        CliTest.Result r = swarm("node", "--roles", "learner", "--host", "10.1.2.3", "--port", "0");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("refusing to start a cluster node on '10.1.2.3'") && r.err().contains("--insecure-cluster")
                && r.err().contains("conf/cluster-tls.conf"), r.err());
    }
}
