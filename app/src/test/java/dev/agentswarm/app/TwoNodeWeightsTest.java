package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.PolicyWeights;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.junit.jupiter.api.Test;

/**
 * Weights published on one node reach the policy server of another: the policy-weights topic's hop
 * between nodes goes on Artery's large-message lane, since even the tiny model's safetensors are
 * larger than an ordinary frame (256 KiB).
 */
class TwoNodeWeightsTest {

    @Test
    void weightsPublishedOnTheLearnersNodeAreServedOnAWorkersNode() throws Exception {
        Config cfg = ConfigFactory.parseString("agentswarm.policy.embedded.model { preset = tiny, context = 256 }")
                .withFallback(SwarmNode.loadConfig(null));
        byte[] weights;
        try (NDManager m = NDManager.newBaseManager()) {
            weights = ModelWeights.export(CausalLm.create(ModelConfig.preset("tiny").withContext(256), m, 5), 7);
        }
        assertTrue(weights.length > 256 * 1024, "past an ordinary frame: " + weights.length + " bytes");
        AtomicReference<EmbeddedPolicy> worker = new AtomicReference<>();
        try (SwarmNode learner = SwarmNode.start(cfg, new EpisodeServices(ScriptedPolicy.replies("done"), EpisodeRuns.builtInTools()), null);
             SwarmNode workers = SwarmNode.start(cfg, system -> {
                 worker.set(EmbeddedPolicy.spawn(system, cfg));
                 return new EpisodeServices(worker.get(), EpisodeRuns.builtInTools());
             }, learner.address())) {
            ActorRef<Topic.Command<PolicyWeights>> publisher = learner.system().systemActorOf(
                    Topic.create(PolicyWeights.class, PolicyWeights.TOPIC), "policy-weights-publisher", Props.empty());
            TestProbe<Topic.TopicStats> stats = TestProbe.create(learner.system());
            stats.awaitAssert(Duration.ofSeconds(20), () -> {
                publisher.tell(Topic.getTopicStats(stats.getRef()));
                assertEquals(1, stats.receiveMessage().topicInstanceCount(), "the worker node's topic is known");
                return null;
            });
            publisher.tell(Topic.publish(new PolicyWeights(7, weights)));
            CompletionRequest ask = new CompletionRequest("e", 0, List.of(Message.user("hi")), List.of(), "auto",
                    new SamplingParams(1.0, 1.0, 0, 2, List.of(), 1L));
            TestProbe<Object> waiting = TestProbe.create(workers.system());
            waiting.awaitAssert(Duration.ofSeconds(20), () -> {
                long served = worker.get().complete(ask).toCompletableFuture().get(10, TimeUnit.SECONDS).policyVersion();
                assertEquals(7, served, "the worker node serves the published version");
                return null;
            });
        }
    }
}
