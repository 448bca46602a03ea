package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import dev.agentswarm.orchestrator.swarm.SwarmEntity;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.WeightsFetcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of a loopback cluster that means harm: a worker node sends the cluster's own messages with
 * values of its choosing to a node with every role (swarms, the learner, a worker with the embedded
 * model). Each attempt is refused, naming what, and leaves nothing behind: run ids that name other
 * folders, a client's settings that would read the node's secrets or files, a training run outside the
 * learner's folder of runs, weights announced by a worker, and weights larger than the model.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class HostileMemberTest {

    private static final Duration ANSWER = Duration.ofSeconds(20);
    private static final String SECRET = "victim-secret-4242";

    @TempDir
    static Path dir;

    private SwarmNode victim;
    private SwarmNode hostile;
    private EmbeddedPolicy victimPolicy;

    @BeforeAll
    void startTheClusterAndItsHostileMember() throws Exception {
        Files.createDirectories(dir.resolve("runs"));
        Config victimConfig = ConfigFactory.parseString("""
                pekko.actor.serialize-messages = on
                agentswarm.policy.embedded.model { preset = tiny }
                agentswarm.policy.openai.api-key = "%s"
                agentswarm.node { swarms-dir = "%s", learner-runs-dir = "%s" }
                agentswarm.persistence.database = h2
                pekko-persistence-jdbc.shared-databases.slick.db.url = "jdbc:h2:mem:hostile-%d;DB_CLOSE_DELAY=-1"
                """.formatted(SECRET, dir.resolve("swarms"), dir.resolve("runs"), System.nanoTime()))
                .withFallback(SwarmNode.loadConfig(null)).resolve();
        victim = SwarmNode.start(victimConfig, system -> {
            victimPolicy = EmbeddedPolicy.spawn(system, victimConfig);
            return new EpisodeServices(victimPolicy, EpisodeRuns.builtInTools());
        }, null);
        JournalDatabase.createSchema(victim.system(), victimConfig);
        Config hostileConfig = ConfigFactory.parseString("""
                pekko.actor.serialize-messages = on
                pekko.cluster.roles = [worker]
                """).withFallback(SwarmNode.loadConfig(null));
        hostile = SwarmNode.start(hostileConfig, new EpisodeServices(ScriptedPolicy.replies("x"), EpisodeRuns.builtInTools()),
                victim.address());
        victim.awaitWorkers(2, Duration.ofSeconds(30));
    }

    @AfterAll
    void stopNodes() {
        if (hostile != null) hostile.close();
        if (victim != null) victim.close();
    }

    /** What the victim's swarm entity {@code runId} answers the hostile member's {@code request}. */
    private SwarmEntity.Update ask(String runId, java.util.function.Function<ActorRef<SwarmEntity.Update>, SwarmEntity.Command> request) {
        TestProbe<SwarmEntity.Update> client = TestProbe.create(hostile.system());
        hostile.swarmRegion().tell(new ShardingEnvelope<>(runId, request.apply(client.getRef())));
        return client.receiveMessage(ANSWER);
    }

    private SwarmEntity.Update start(String runId, String settings) {
        return ask(runId, c -> new SwarmEntity.Start(Task.of("t", "say hi"), settings, List.of(), c));
    }

    @Test
    void runIdsThatNameOtherFoldersAreRefusedAndNothingIsWritten() throws Exception {
        Path outside = dir.resolve("outside");
        for (String runId : List.of("../outside", "../../outside", outside.toString(), "a/../../outside")) {
            SwarmEntity.Update answer = start(runId, "{}");
            assertTrue(answer instanceof SwarmEntity.Refused r && r.reason().contains("run id '" + runId + "' refused"),
                    runId + ": " + answer);
            answer = ask(runId, SwarmEntity.Attach::new);
            assertTrue(answer instanceof SwarmEntity.Refused, runId + " attached: " + answer);
        }
        assertFalse(Files.exists(outside), "nothing written outside the swarms' folder");
        try (Stream<Path> written = Files.exists(dir.resolve("swarms")) ? Files.list(dir.resolve("swarms")) : Stream.empty()) {
            assertEquals(List.of(), written.toList(), "nor inside it");
        }
    }

    @Test
    void aClientsSettingsThatWouldReadTheNodesSecretsOrFilesAreRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("node-file.conf"), "agentswarm.swarm.orchestrator.system-prompt = \"" + SECRET + "\"\n");
        String[][] attempts = {
                {"agentswarm.swarm.orchestrator.system-prompt = ${agentswarm.policy.openai.api-key}", "${…}"},
                {"agentswarm.swarm.orchestrator.system-prompt = ${PATH}", "${…}"},
                {"include file(\"" + file + "\")", "may not include anything"},
                {"agentswarm.swarm { include \"" + file + "\" }", "may not include anything"},
                {"agentswarm.policy.openai.base-url = \"http://127.0.0.1:9/v1\"", "not agentswarm.policy"},
        };
        int n = 0;
        for (String[] attempt : attempts) {
            String runId = "hostile-settings-" + ++n;
            SwarmEntity.Update answer = start(runId, attempt[0]);
            assertTrue(answer instanceof SwarmEntity.Refused r && r.reason().contains(attempt[1]) && !r.reason().contains(SECRET),
                    attempt[0] + ": " + answer);
            // Nothing was journaled: the run id has no swarm.
            assertTrue(ask(runId, SwarmEntity.Attach::new) instanceof SwarmEntity.Unknown, runId + " was not started");
        }
    }

    @Test
    void aTrainingRunOutsideTheLearnersFolderOfRunsIsRefused() throws Exception {
        Path foreign = Files.createDirectories(dir.resolve("foreign-run"));
        Files.writeString(foreign.resolve(Training.CONFIG_FILE), "agentswarm.train.suite = arithmetic\n");
        for (String runDir : List.of(foreign.toString(), dir.resolve("runs").resolve("../foreign-run").toString(), "/")) {
            TestProbe<LearnerProtocol.TrainReply> replies = TestProbe.create(hostile.system());
            hostile.learner().tell(new LearnerProtocol.TrainBatch(1, List.of(), 0, 0, runDir, replies.getRef()));
            LearnerProtocol.BatchTrained answer = (LearnerProtocol.BatchTrained) replies.receiveMessage(ANSWER);
            assertTrue(answer.error() != null && answer.error().contains("refused")
                    && answer.error().contains("not inside this learner node's folder of runs"), runDir + ": " + answer.error());
        }
    }

    @Test
    void weightsAnnouncedByAWorkerOrLargerThanTheModelAreNotFetched() throws Exception {
        ActorRef<Topic.Command<WeightsNotice>> topic = hostile.system().systemActorOf(
                Topic.create(WeightsNotice.class, WeightsProtocol.TOPIC), "hostile-topic", Props.empty());
        awaitOtherTopic(topic);
        // The hostile worker's own source, which would hand out any bytes.
        byte[] bytes = new byte[4096];
        ActorRef<WeightsProtocol.SourceCommand> fake = hostile.system().systemActorOf(Behaviors.receive(WeightsProtocol.SourceCommand.class)
                .onMessage(WeightsProtocol.FetchChunk.class, f -> {
                    f.replyTo().tell(new WeightsProtocol.WeightsChunk(f.version(), f.index(), f.nonce(), bytes));
                    return Behaviors.same();
                }).build(), "fake-weights-source", Props.empty());
        WeightsNotice fromWorker = WeightsNotice.of(50, bytes, 4096, fake);
        LoggingTestKit.warn("ignored weights version 50").expect(victim.system(), () -> {
            topic.tell(Topic.publish(fromWorker));
            return null;
        });
        // The cluster's real learner named as the source, with a size no model of this node has: refused from the notice alone.
        WeightsNotice huge = new WeightsNotice(51, Integer.MAX_VALUE - 16L, 4 << 20, 512, new int[512], learnerSourceSeenByHostile());
        LoggingTestKit.warn("refused weights version 51").withMessageContains("this node's model implies").expect(victim.system(), () -> {
            topic.tell(Topic.publish(huge));
            return null;
        });
        TestProbe<WeightsFetcher.Serving> serving = TestProbe.create(victim.system());
        victimPolicy.weights().tell(new WeightsFetcher.GetServing(serving.getRef()));
        assertEquals(0, serving.receiveMessage(ANSWER).newest(), "neither version is even known as the newest");
    }

    /** The learner's weights source as any member finds it, through the Receptionist. */
    private ActorRef<WeightsProtocol.SourceCommand> learnerSourceSeenByHostile() throws Exception {
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (true) {
            Receptionist.Listing listing = AskPattern.<Receptionist.Command, Receptionist.Listing>ask(hostile.system().receptionist(),
                    r -> Receptionist.find(WeightsProtocol.SOURCE_KEY, r), ANSWER, hostile.system().scheduler()).toCompletableFuture().get();
            var sources = listing.getServiceInstances(WeightsProtocol.SOURCE_KEY);
            if (!sources.isEmpty()) return sources.iterator().next();
            if (System.nanoTime() > deadline) throw new AssertionError("the hostile member never saw the learner's weights source");
            Thread.sleep(50);
        }
    }

    /** Waits until the hostile node's topic knows the victim's (a notice published before would go nowhere). */
    private void awaitOtherTopic(ActorRef<Topic.Command<WeightsNotice>> topic) throws Exception {
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (AskPattern.<Topic.Command<WeightsNotice>, Topic.TopicStats>ask(topic, Topic::getTopicStats, ANSWER,
                hostile.system().scheduler()).toCompletableFuture().get().topicInstanceCount() < 1) {
            if (System.nanoTime() > deadline) throw new AssertionError("the victim's weights topic never showed");
            Thread.sleep(50);
        }
    }
}
