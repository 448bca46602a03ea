package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The shipped conf/cluster-tls.conf with stores made by bin/swarm-cluster certs: two nodes with
 * certificates from the cluster's CA form a cluster over TLS and run episodes on each other, while
 * a node with a certificate from another CA, and a plain-TCP node, never become members.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class ClusterTlsTest {

    /** The tests run in the module folder, app/. */
    private static final Path SCRIPT = Path.of("../bin/swarm-cluster");
    private static final Path TLS_CONF = Path.of("../conf/cluster-tls.conf");
    private static final String SSL = "pekko.remote.artery.ssl.config-ssl-engine.";
    /** A node with the right certificate is Up within about a second; eight give a refusal ample time to show. */
    private static final Duration REFUSAL_WINDOW = Duration.ofSeconds(8);
    /** How long an intruder is still watched once its refusal is logged: a join that would follow it has had time to. */
    private static final Duration AFTER_REFUSAL = Duration.ofSeconds(3);

    @TempDir
    static Path tmp;

    private Path clusterCerts;
    private Path otherCaCerts;
    private String clusterPassword;
    private List<Task> tasks;
    private ScriptedPolicy policyA;
    private ScriptedPolicy policyB;
    private SwarmNode a;
    private SwarmNode b;

    @BeforeAll
    void makeCertificatesAndStartTwoTlsNodes() throws Exception {
        clusterCerts = tmp.resolve("cluster");
        otherCaCerts = tmp.resolve("other-ca");
        String made = certs(clusterCerts, "--nodes", "2");
        assertTrue(made.contains("export SWARM_TLS_PASSWORD"), made);
        certs(otherCaCerts, "--nodes", "1");
        for (String f : List.of("ca.p12", "ca.crt", "truststore.p12", "node1.p12", "node2.p12", "password")) {
            assertTrue(Files.isRegularFile(clusterCerts.resolve(f)), f + " made: " + made);
        }
        clusterPassword = password(clusterCerts);

        tasks = DemoScript.tasks(40, 3);
        policyA = DemoScript.policy(tasks);
        policyB = DemoScript.policy(tasks);
        long start = System.nanoTime();
        a = SwarmNode.start(tlsNode("node1"), new EpisodeServices(policyA, EpisodeRuns.builtInTools()), null);
        b = SwarmNode.start(tlsNode("node2"), new EpisodeServices(policyB, EpisodeRuns.builtInTools()), a.address());
        awaitUpMembers(a, 2);
        System.out.printf("two TLS nodes Up in %d ms%n", (System.nanoTime() - start) / 1_000_000);
    }

    @AfterAll
    void stopNodes() {
        // b first, so that a, the seed, sees it leave.
        if (b != null) stop(b.system());
        if (a != null) stop(a.system());
    }

    @Test
    void nodesWithCertificatesFromTheClusterCaFormAClusterOverTlsAndRunEpisodesOnEachOther() throws Exception {
        for (SwarmNode node : List.of(a, b)) {
            Config running = node.system().settings().config();
            assertEquals("tls-tcp", running.getString("pekko.remote.artery.transport"));
            assertTrue(running.getBoolean(SSL + "require-mutual-authentication"));
            assertEquals("TLSv1.3", running.getString(SSL + "protocol"));
            assertTrue(running.getBoolean(SSL + "hostname-verification"), "a peer's certificate must name its host");
            assertEquals(clusterCerts.resolve("truststore.p12").toString(), running.getString(SSL + "trust-store"));
            assertEquals(2, upMembers(node).size(), "both nodes are Up, seen from " + node.address());
        }
        assertEquals(clusterCerts.resolve("node2.p12").toString(), b.system().settings().config().getString(SSL + "key-store"));

        EpisodeSpec spec = EpisodeSpec.fromConfig(a.system().settings().config().getConfig("agentswarm.episode"));
        List<BatchRunner.Job> jobs = tasks.stream().map(t -> new BatchRunner.Job("tls-" + t.id(), "g", t, spec)).toList();
        List<Trajectory> out = EpisodeRuns.runAll(a, jobs, 16, t -> {});
        assertEquals(tasks.size(), out.size());
        for (int i = 0; i < tasks.size(); i++) {
            assertEquals(StopReason.FINAL_ANSWER, out.get(i).stopReason(), out.get(i).toString());
            assertEquals(tasks.get(i).answer(), out.get(i).finalAnswer());
        }
        assertTrue(policyA.calls() > 0 && policyB.calls() > 0,
                "episodes ran on both nodes, crossing the TLS link: " + policyA.calls() + " / " + policyB.calls() + " policy calls");
    }

    @Test
    void aNodeWithACertificateFromAnotherCaCannotJoin() throws Exception {
        // It trusts the cluster's CA, so only the cluster's check of its certificate can keep it out.
        Config intruder = SwarmNode.loadConfig(TLS_CONF, ConfigFactory.parseMap(Map.of(
                "SWARM_TLS_KEYSTORE", otherCaCerts.resolve("node1.p12").toString(),
                "SWARM_TLS_PASSWORD", password(otherCaCerts),
                "SWARM_TLS_TRUSTSTORE", clusterCerts.resolve("truststore.p12").toString(),
                "SWARM_TLS_TRUSTSTORE_PASSWORD", clusterPassword)));
        assertEquals("tls-tcp", intruder.getString("pekko.remote.artery.transport"));
        assertEquals(otherCaCerts.resolve("node1.p12").toString(), intruder.getString(SSL + "key-store"));
        // Node a turns the certificate down in the TLS handshake with a fatal alert (bad_certificate here),
        // heard by the intruder (a logs nothing itself): the refusal is TLS's, not a slow join.
        String toA = "outbound connection to [" + a.address() + "]";
        assertNeverJoins(intruder, "the intruder's handshake was refused",
                m -> m.contains(toA) && m.contains("SSLHandshakeException: Received fatal alert"));
    }

    @Test
    void aNodeWithACertificateFromTheClusterCaForAnotherHostCannotJoin() throws Exception {
        // Signed by the cluster's own CA, as a certificate taken from another host would be, but naming 10.9.9.9
        // (a name only: nothing is sent there). The node it joins dials it back at 127.0.0.1 and checks the name.
        Path misnamed = certificateOfTheClusterCa("misnamed", "IP:10.9.9.9");
        Config intruder = SwarmNode.loadConfig(TLS_CONF, ConfigFactory.parseMap(Map.of(
                "SWARM_TLS_KEYSTORE", misnamed.toString(),
                "SWARM_TLS_PASSWORD", clusterPassword,
                "SWARM_TLS_TRUSTSTORE", clusterCerts.resolve("truststore.p12").toString())));
        assertNeverJoins(intruder, "the certificate was refused for its name",
                m -> m.contains("No subject alternative names matching IP address 127.0.0.1"));
    }

    /** A keystore with a new key whose certificate, signed by the cluster's CA, names {@code san}. */
    private Path certificateOfTheClusterCa(String name, String san) throws Exception {
        Path scratch = tmp.resolve(name + "-scratch.p12");
        Path store = tmp.resolve(name + ".p12");
        Files.copy(clusterCerts.resolve("ca.p12"), scratch);
        // keytool signs only with a signer in the same store: made in a copy of the CA's, then moved to its own.
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-validity", "2", "-dname", "CN=agentswarm " + name, "-signer", "ca", "-ext", "SAN=" + san,
                "-ext", "EKU=serverAuth,clientAuth", "-ext", "KU:c=digitalSignature", "-storetype", "PKCS12",
                "-keystore", scratch.toString(), "-storepass:env", "SWARM_TLS_PASSWORD");
        keytool("-importkeystore", "-noprompt", "-srckeystore", scratch.toString(), "-srcalias", name,
                "-srcstorepass:env", "SWARM_TLS_PASSWORD", "-destkeystore", store.toString(), "-deststoretype", "PKCS12",
                "-deststorepass:env", "SWARM_TLS_PASSWORD");
        Files.delete(scratch);
        return store;
    }

    private void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Path log = tmp.resolve("keytool.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SWARM_TLS_PASSWORD", clusterPassword); // from the environment: never in a process list
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("keytool ran over 60 s: " + Files.readString(log));
        }
        assertEquals(0, p.exitValue(), Files.readString(log));
    }

    @Test
    void aPlainTcpNodeCannotJoin() throws Exception {
        Config plain = SwarmNode.loadConfig(null);
        assertEquals("tcp", plain.getString("pekko.remote.artery.transport"));
        assertNeverJoins(plain);
    }

    /** Starts a node with {@code config}, has it join node a, and checks that it stays outside for the whole refusal window. */
    private void assertNeverJoins(Config config) throws Exception {
        assertNeverJoins(config, null, m -> false);
    }

    /**
     * The same, expecting a logged line (with its exception's message) that says {@code refusal}: the
     * watch ends a short while after it (a refusal is seen within a second; the rest of the window would
     * only wait), and fails, saying {@code expected}, when none came.
     */
    private void assertNeverJoins(Config config, String expected, Predicate<String> refusal) throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(log);
        ActorSystem<Void> intruder = ActorSystem.create(Behaviors.empty(), "swarm", config);
        try {
            Cluster cluster = Cluster.get(intruder);
            Address self = cluster.selfMember().address();
            cluster.manager().tell(Join.create(a.address()));
            long start = System.nanoTime();
            long end = start + REFUSAL_WINDOW.toNanos();
            while (System.nanoTime() < end
                    && !(System.nanoTime() - start > AFTER_REFUSAL.toNanos() && lines(log).stream().anyMatch(refusal))) {
                for (SwarmNode node : List.of(a, b)) {
                    assertFalse(memberAddresses(node.system()).contains(self), self + " became a member, seen from " + node.address());
                }
                assertNotEquals(MemberStatus.up(), cluster.selfMember().status(), "the intruder thinks it is Up");
                assertFalse(memberAddresses(intruder).contains(a.address()), "the intruder was welcomed by " + a.address());
                Thread.sleep(100);
            }
            assertEquals(Set.of(a.address(), b.address()), upMembers(a), "the cluster is as it was");
            if (expected != null) assertTrue(lines(log).stream().anyMatch(refusal), expected + ": " + lines(log));
        } finally {
            stop(intruder);
            root.detachAppender(log);
        }
    }

    private static List<String> lines(ListAppender<ILoggingEvent> log) {
        synchronized (log) {
            return log.list.stream().map(e -> e.getFormattedMessage() + (e.getThrowableProxy() == null ? ""
                    : " " + e.getThrowableProxy().getMessage())).toList();
        }
    }

    /**
     * Terminates {@code system} and waits a bounded time: Artery in Pekko 1.7 waits for its streams
     * without a deadline when it shuts down, and once in a few dozen runs a TLS node here never
     * finished terminating (idle threads, nothing to wait for). That must not hang the build.
     */
    private static void stop(ActorSystem<?> system) {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("ClusterTlsTest: " + system.address() + " did not terminate within 30 s (" + e + "); going on");
        }
    }

    /** The node defaults under the shipped TLS file, its variables set as the test's certificates need. */
    private Config tlsNode(String node) {
        Config variables = ConfigFactory.parseMap(Map.of(
                "SWARM_TLS_DIR", clusterCerts.toString(),
                "SWARM_TLS_NODE", node,
                "SWARM_TLS_PASSWORD", clusterPassword));
        return ConfigFactory.parseString("pekko.actor.serialize-messages = on")
                .withFallback(SwarmNode.loadConfig(TLS_CONF, variables));
    }

    private static String certs(Path dir, String... options) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(SCRIPT.toString(), "certs", dir.toString()));
        command.addAll(List.of(options));
        Path log = tmp.resolve(dir.getFileName() + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // Without a password given, the script makes one: the path a first user takes.
        pb.environment().remove("SWARM_TLS_PASSWORD");
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("swarm-cluster certs ran over 60 s: " + Files.readString(log));
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String password(Path certs) throws Exception {
        return Files.readString(certs.resolve("password")).strip();
    }

    private static void awaitUpMembers(SwarmNode node, int n) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (upMembers(node).size() < n && System.nanoTime() < end) Thread.sleep(10);
        assertEquals(n, upMembers(node).size(), "members Up, seen from " + node.address());
    }

    private static Set<Address> upMembers(SwarmNode node) {
        return members(node.system()).stream().filter(m -> m.status().equals(MemberStatus.up()))
                .map(Member::address).collect(Collectors.toSet());
    }

    private static Set<Address> memberAddresses(ActorSystem<?> system) {
        return members(system).stream().map(Member::address).collect(Collectors.toSet());
    }

    private static List<Member> members(ActorSystem<?> system) {
        return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false).toList();
    }
}
