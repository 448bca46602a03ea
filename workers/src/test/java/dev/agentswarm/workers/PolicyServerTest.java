package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.metrics.NodeMetrics;
import dev.agentswarm.core.policy.PolicyException;
import io.micrometer.core.instrument.MeterRegistry;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import ai.djl.ndarray.NDManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyServerTest {

    private static final ModelConfig TINY = ModelConfig.preset("tiny").withContext(2048);

    private ActorTestKit kit;
    private EmbeddedModel model;

    @BeforeAll
    void start() {
        kit = ActorTestKit.create("policy-server",
                ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));
        model = EmbeddedModel.create(TINY, BpeTokenizer.untrained(), null, 3);
    }

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
        model.close();
    }

    private ActorRef<PolicyServer.Command> server(int slots, int queued) {
        return kit.spawn(PolicyServer.create(() -> model.newGenerator(new GeneratorSettings(slots, queued, 4096, 1))),
                "server-" + System.nanoTime(), DispatcherSelector.fromConfig("agentswarm.policy-server-dispatcher"));
    }

    private EmbeddedPolicy policy(ActorRef<PolicyServer.Command> server) {
        return new EmbeddedPolicy(server, model.template(), kit.scheduler(), Duration.ofSeconds(30), model.describe());
    }

    private static CompletionRequest ask(String text, int maxTokens, long seed) {
        return new CompletionRequest("e", 0, List.of(Message.user(text)), List.of(), "auto",
                new SamplingParams(1.0, 1.0, 0, maxTokens, List.of(), seed));
    }

    @Test
    void concurrentEpisodesShareDecodeSteps() throws Exception {
        ActorRef<PolicyServer.Command> server = server(16, 64);
        EmbeddedPolicy policy = policy(server);
        List<CompletableFuture<Completion>> futures = new ArrayList<>();
        for (int i = 0; i < 16; i++) futures.add(policy.complete(ask("question " + i, 12, i)).toCompletableFuture());
        long tokens = 0;
        for (CompletableFuture<Completion> f : futures) {
            Completion c = f.get(30, TimeUnit.SECONDS);
            assertEquals(c.tokenIds().length, c.logprobs().length);
            assertTrue(c.tokenIds().length >= 1 && c.tokenIds().length <= 12);
            assertTrue(c.promptTokens() > 0);
            tokens += c.tokenIds().length;
        }
        TestProbe<BatchGenerator.Stats> probe = kit.createTestProbe();
        server.tell(new PolicyServer.GetStats(probe.getRef()));
        BatchGenerator.Stats stats = probe.receiveMessage();
        assertEquals(tokens, stats.generatedTokens());
        assertTrue(stats.steps() * 3 < tokens, "16 sequences shared " + stats.steps() + " steps for " + tokens + " tokens");
        assertEquals(0, stats.running());
    }

    @Test
    void aFullQueueIsRefusedAtOnceWithTheReason() throws Exception {
        ActorRef<PolicyServer.Command> server = server(1, 1);
        EmbeddedPolicy policy = policy(server);
        var first = policy.complete(ask("a", 40, 1)).toCompletableFuture();
        var second = policy.complete(ask("b", 40, 2)).toCompletableFuture();
        var third = policy.complete(ask("c", 40, 3)).toCompletableFuture();
        var e = assertInstanceOf(ExecutionException.class, org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> third.get(10, TimeUnit.SECONDS)));
        PolicyException pe = assertInstanceOf(PolicyException.class, e.getCause());
        assertTrue(pe.getMessage().contains("queue full"), pe.getMessage());
        assertTrue(pe.retryable());
        assertNotNull(first.get(30, TimeUnit.SECONDS));
        assertNotNull(second.get(30, TimeUnit.SECONDS));
    }

    @Test
    void newWeightsApplyBetweenStepsAndBadOnesAreRefused() throws Exception {
        ActorRef<PolicyServer.Command> server = server(4, 16);
        EmbeddedPolicy policy = policy(server);
        byte[] v5;
        try (NDManager m = NDManager.newBaseManager()) {
            v5 = ModelWeights.export(CausalLm.create(TINY, m, 42), 5);
        }
        TestProbe<PolicyServer.WeightsLoaded> loaded = kit.createTestProbe();
        TestProbe<PolicyServer.Reply> during = kit.createTestProbe();
        // No stop ids: the sequence runs all its tokens, so a swap sent as soon as its first token is
        // out lands mid-sequence. Polled back to back (not at awaitAssert's 100 ms): the sequence is
        // long enough that a loaded machine still swaps well before its end.
        int length = 1500;
        server.tell(new PolicyServer.Generate(77, new int[] {1, 2, 3}, new SamplingParams(1.0, 1.0, 0, length, List.of(), 9L),
                new int[0], during.getRef()));
        TestProbe<BatchGenerator.Stats> stats = kit.createTestProbe();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do {
            server.tell(new PolicyServer.GetStats(stats.getRef()));
            assertTrue(System.nanoTime() < deadline, "no first token within 30 s");
        } while (stats.receiveMessage().generatedTokens() == 0);
        server.tell(new PolicyServer.LoadWeights(v5, loaded.getRef()));
        PolicyServer.WeightsLoaded ok = loaded.receiveMessage();
        assertNull(ok.error());
        assertEquals(5, ok.version());
        var g = assertInstanceOf(PolicyServer.Generated.class, during.receiveMessage(Duration.ofSeconds(60))).generation();
        assertEquals(0, g.firstVersion(), "the first tokens came from version 0");
        assertEquals(5, g.lastVersion(), "the last ones from version 5");
        assertEquals(length, g.tokens().length);
        assertEquals(5, policy.complete(ask("after", 4, 1)).toCompletableFuture().get(30, TimeUnit.SECONDS).policyVersion());

        server.tell(new PolicyServer.LoadWeights("junk".getBytes(), loaded.getRef()));
        PolicyServer.WeightsLoaded bad = loaded.receiveMessage();
        assertTrue(bad.error().contains("not a safetensors file"), bad.error());
        assertEquals(5, bad.version(), "still serving version 5");
        assertEquals(5, policy.complete(ask("still", 4, 1)).toCompletableFuture().get(30, TimeUnit.SECONDS).policyVersion());
    }

    @Test
    void cancellingACompletionFreesItsSlot() throws Exception {
        ActorRef<PolicyServer.Command> server = server(1, 4);
        EmbeddedPolicy policy = policy(server);
        var hog = policy.complete(ask("hog", 480, 1)).toCompletableFuture();
        var next = policy.complete(ask("next", 3, 2)).toCompletableFuture();
        hog.cancel(true);
        assertTrue(next.get(30, TimeUnit.SECONDS).tokenIds().length <= 3);
    }

    @Test
    void anEpisodeOnTheEmbeddedModelRecordsTokensLogProbsAndVersions() {
        ActorRef<PolicyServer.Command> server = server(8, 16);
        EpisodeServices services = new EpisodeServices(policy(server), ToolRegistry.of(new CalculatorTool()));
        ActorRef<dev.agentswarm.core.protocol.WorkerProtocol.Command> worker = kit.spawn(RolloutWorker.create(services, 100));
        EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"))
                .withLimits(2, 4000, 1500, 60_000, 5_000)
                .withSampling(new SamplingParams(1.0, 1.0, 0, 48, List.of(), 7L));
        TestProbe<Trajectory> probe = kit.createTestProbe();
        worker.tell(new RunEpisode("emb-1", "g", Task.of("t", "What is 17 * 23?"), spec, 0, probe.getRef()));
        Trajectory t = probe.receiveMessage(Duration.ofSeconds(60));
        assertTrue(t.stopReason() != StopReason.CRASHED && t.stopReason() != StopReason.POLICY_ERROR, t.toString());
        Turn first = t.turns().stream().filter(x -> x.tokenIds().length > 0).findFirst().orElseThrow();
        assertEquals(first.tokenIds().length, first.logprobs().length);
        assertEquals(0, first.policyVersion());
    }

    @Test
    void theServerRecordsQueueDepthBatchSizeTokensAndVersionOnItsNode() throws Exception {
        // A node of its own: the class's other tests record on the shared kit's registry.
        ActorTestKit own = ActorTestKit.create("policy-meters", kit.system().settings().config());
        try {
            MeterRegistry registry = NodeMetrics.get(own.system()).registry();
            ActorRef<PolicyServer.Command> server = own.spawn(PolicyServer.create(() -> model.newGenerator(new GeneratorSettings(1, 8, 4096, 1))),
                    "server", DispatcherSelector.fromConfig("agentswarm.policy-server-dispatcher"));
            TestProbe<PolicyServer.Reply> replies = own.createTestProbe();
            // One slot: a long generation holds it while two short ones wait in the queue.
            server.tell(new PolicyServer.Generate(1, new int[] {1, 2, 3}, new SamplingParams(1.0, 1.0, 0, 1500, List.of(), 9L),
                    new int[0], replies.getRef()));
            server.tell(new PolicyServer.Generate(2, new int[] {4, 5}, new SamplingParams(1.0, 1.0, 0, 4, List.of(), 1L),
                    new int[0], replies.getRef()));
            server.tell(new PolicyServer.Generate(3, new int[] {6, 7}, new SamplingParams(1.0, 1.0, 0, 4, List.of(), 2L),
                    new int[0], replies.getRef()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // The gauges are registered when the server's setup runs, on its own thread.
            while (registry.find(PolicyServerMeters.QUEUE_DEPTH).gauge() == null
                    || registry.get(PolicyServerMeters.QUEUE_DEPTH).gauge().value() != 2) {
                assertTrue(System.nanoTime() < deadline, "two requests never waited at once");
                Thread.onSpinWait();
            }
            long tokens = 0;
            for (int i = 0; i < 3; i++) {
                tokens += assertInstanceOf(PolicyServer.Generated.class, replies.receiveMessage(Duration.ofSeconds(60))).generation().tokens().length;
            }
            assertEquals(0, registry.get(PolicyServerMeters.QUEUE_DEPTH).gauge().value());
            assertEquals(tokens, registry.get(PolicyServerMeters.TOKENS).counter().count());
            var batch = registry.get(PolicyServerMeters.BATCH_SIZE).summary();
            assertEquals(1.0, batch.max(), "one slot: one sequence per decode step");
            // The first token of each sequence comes from its prefill; every later one from a decode step.
            assertEquals(tokens - 3, batch.count());
            assertEquals(0, registry.get(PolicyServerMeters.VERSION).gauge().value());
            byte[] v7;
            try (NDManager m = NDManager.newBaseManager()) {
                v7 = ModelWeights.export(CausalLm.create(TINY, m, 42), 7);
            }
            TestProbe<PolicyServer.WeightsLoaded> loaded = own.createTestProbe();
            server.tell(new PolicyServer.LoadWeights(v7, loaded.getRef()));
            assertNull(loaded.receiveMessage().error());
            assertEquals(7, registry.get(PolicyServerMeters.VERSION).gauge().value());
        } finally {
            own.shutdownTestKit();
        }
    }

    @Test
    void aStreamedRequestGetsItsTokensAsTheyComeAndThenTheWholeGeneration() {
        ActorRef<PolicyServer.Command> server = server(4, 4);
        TestProbe<PolicyServer.Reply> streamed = kit.createTestProbe();
        TestProbe<PolicyServer.Reply> plain = kit.createTestProbe();
        int[] prompt = model.template().prompt(List.of(Message.user("count")), List.of());
        SamplingParams sampling = new SamplingParams(1.0, 1.0, 0, 12, List.of(), 5L);
        server.tell(new PolicyServer.Generate(1, prompt, sampling, new int[0], streamed.getRef(), true));
        server.tell(new PolicyServer.Generate(2, prompt, sampling, new int[0], plain.getRef()));
        List<Integer> seen = new ArrayList<>();
        List<Float> seenLogprobs = new ArrayList<>();
        PolicyServer.Generated done = null;
        int parts = 0;
        while (done == null) {
            PolicyServer.Reply r = streamed.receiveMessage(Duration.ofSeconds(30));
            if (r instanceof PolicyServer.Tokens t) {
                assertEquals(1, t.requestId());
                assertEquals(t.tokenIds().length, t.logprobs().length);
                for (int i = 0; i < t.tokenIds().length; i++) {
                    seen.add(t.tokenIds()[i]);
                    seenLogprobs.add(t.logprobs()[i]);
                }
                parts++;
            } else {
                done = assertInstanceOf(PolicyServer.Generated.class, r);
            }
        }
        int[] all = done.generation().tokens();
        assertTrue(parts >= 2, "tokens arrive step by step, got " + parts + " parts");
        assertTrue(seen.size() < all.length, "the last step's token comes with the generation");
        for (int i = 0; i < seen.size(); i++) {
            assertEquals(all[i], seen.get(i), "streamed token " + i);
            assertEquals(done.generation().logprobs()[i], seenLogprobs.get(i), "streamed log-prob " + i);
        }
        // The same seed without streaming: the same tokens, and only the one reply.
        PolicyServer.Generated same = assertInstanceOf(PolicyServer.Generated.class, plain.receiveMessage(Duration.ofSeconds(30)));
        assertArrayEquals(all, same.generation().tokens());
        plain.expectNoMessage(Duration.ofMillis(200));
    }
}
