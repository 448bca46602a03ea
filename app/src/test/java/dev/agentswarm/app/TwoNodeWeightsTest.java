package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.learner.WeightsSource;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.WeightsFetcher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Weights published on the learner's node are served on other nodes, whatever their size: here the
 * large-message lane's frame is 1 MiB and the {@code small} model's safetensors are 13 MB, so they
 * can only cross as chunks (512 KiB). The learner's own node serves them too, handed over whole
 * within the JVM. Every message goes through CBOR ({@code serialize-messages}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwoNodeWeightsTest {

    private static final Config CFG = ConfigFactory.parseString("""
            pekko.actor.serialize-messages = on
            pekko.remote.artery.advanced.maximum-large-frame-size = 1 MiB
            agentswarm.weights.chunk-size = 512 KiB
            agentswarm.policy.embedded.model { preset = small }
            """).withFallback(SwarmNode.loadConfig(null));
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final CompletionRequest ASK = new CompletionRequest("e", 0, List.of(Message.user("hi")), List.of(), "auto",
            new SamplingParams(1.0, 1.0, 0, 2, List.of(), 1L));

    private NDManager manager;
    private CausalLm trained; // stands for the learner's model: each version is its weights under a new number
    private SwarmNode learner;
    private EmbeddedPolicy learnerPolicy; // the policy of the learner's own node, as in the embedded default
    private Worker worker;
    private ActorRef<WeightsProtocol.SourceCommand> source;
    private long version;

    /** A worker node and its embedded policy, whose fetcher follows the learner's weights. */
    private record Worker(SwarmNode node, EmbeddedPolicy policy) implements AutoCloseable {
        @Override
        public void close() {
            node.close();
        }
    }

    @BeforeAll
    void start() throws Exception {
        manager = NDManager.newBaseManager();
        trained = CausalLm.create(ModelConfig.preset("small"), manager, 5);
        learner = SwarmNode.start(CFG, system -> {
            learnerPolicy = EmbeddedPolicy.spawn(system, CFG);
            return new EpisodeServices(learnerPolicy, EpisodeRuns.builtInTools());
        }, null);
        source = learner.weightsSource();
        worker = worker();
    }

    @AfterAll
    void stop() {
        if (worker != null) worker.close();
        if (learner != null) learner.close();
        if (manager != null) manager.close();
    }

    private Worker worker() throws Exception {
        AtomicReference<EmbeddedPolicy> policy = new AtomicReference<>();
        SwarmNode node = SwarmNode.start(CFG, system -> {
            policy.set(EmbeddedPolicy.spawn(system, CFG));
            return new EpisodeServices(policy.get(), EpisodeRuns.builtInTools());
        }, learner.address());
        return new Worker(node, policy.get());
    }

    private byte[] publish(long v) {
        byte[] bytes = ModelWeights.export(trained, v);
        source.tell(new WeightsSource.Publish(v, bytes, null));
        return bytes;
    }

    private static long servedVersion(EmbeddedPolicy policy) throws Exception {
        return policy.complete(ASK).toCompletableFuture().get(10, TimeUnit.SECONDS).policyVersion();
    }

    @Test
    void aModelLargerThanTheLargeFrameIsServedOnTheOtherNode() throws Exception {
        long v = ++version;
        byte[] bytes = publish(v);
        assertTrue(bytes.length > 8 * (1 << 20), "many frames' worth: " + bytes.length + " bytes");
        WeightsFetcher.Serving s = WeightsFetcher.awaitVersion(worker.policy().weights(), v, WAIT, worker.node().system().scheduler())
                .toCompletableFuture().get();
        assertEquals(v, s.version());
        assertEquals(v, servedVersion(worker.policy()), "completions come from the published version");
    }

    @Test
    void theLearnersOwnNodeTakesTheWholeVersionFromItsSourceWithoutChunks() throws Exception {
        long v = ++version;
        LoggingTestKit.info("weights version " + v + " taken whole from this JVM's source").expect(learner.system(), () -> publish(v));
        assertEquals(v, WeightsFetcher.awaitVersion(learnerPolicy.weights(), v, WAIT, learner.system().scheduler())
                .toCompletableFuture().get().version());
        assertEquals(v, servedVersion(learnerPolicy));
        assertEquals(v, WeightsFetcher.awaitVersion(worker.policy().weights(), v, WAIT, worker.node().system().scheduler())
                .toCompletableFuture().get().version(), "and the other node pulled the chunks");
    }

    @Test
    void twoVersionsInQuickSuccessionEndWithTheNewestServed() throws Exception {
        long first = ++version;
        long second = ++version;
        publish(first);
        publish(second);
        assertEquals(second, WeightsFetcher.awaitVersion(worker.policy().weights(), second, WAIT, worker.node().system().scheduler())
                .toCompletableFuture().get().version());
        assertEquals(second, servedVersion(worker.policy()));
    }

    @Test
    void aNodeThatJoinsAfterThePublicationFetchesTheCurrentWeightsBeforeItWorks() throws Exception {
        long v = ++version;
        publish(v);
        try (Worker late = worker()) {
            // The node's start waited for the current weights before it hosted any worker: no waiting here.
            assertEquals(v, servedVersion(late.policy()), "caught up without a new publication, before taking work");
            WeightsFetcher.Serving s = WeightsFetcher.awaitCurrent(late.policy().weights(), WAIT, late.node().system().scheduler())
                    .toCompletableFuture().get();
            assertEquals(v, s.version());
        }
    }
}
