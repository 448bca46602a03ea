package dev.agentswarm.learner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.LearnerProtocol.BatchTrained;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpoint;
import dev.agentswarm.core.protocol.LearnerProtocol.Checkpointed;
import dev.agentswarm.learner.sft.Checkpoints;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import dev.agentswarm.core.protocol.LearnerProtocol.TrainBatch;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.WeightsProtocol;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.learner.optim.AdamW;
import dev.agentswarm.learner.rl.GrpoSettings;
import dev.agentswarm.learner.rl.GrpoTrainer;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.model.SafetensorsFile;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The learner actor: an update per batch, its weights handed to the weights source, refusals that change nothing. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LearnerTest {

    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());
    private final ActorTestKit kit = ActorTestKit.create("learner",
            ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(ConfigFactory.load()));

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    private static Trajectory rollout(String task, int k, double reward, int tokens, boolean matchingLogprobs) {
        SplittableRandom rng = new SplittableRandom(task.hashCode() * 31L + k);
        int[] ids = rng.ints(tokens, 0, 256).toArray();
        float[] logp = new float[matchingLogprobs ? tokens : tokens - 1];
        java.util.Arrays.fill(logp, -5.5f);
        Turn turn = Turn.assistant(0, new Completion("x", List.of(), ids, logp, FinishReason.STOP, 0, 8, tokens), List.of(), List.of(),
                null, null);
        return new Trajectory(task + "#" + k, task, task, List.of(Message.system("s"), Message.user(task)), List.of(turn), "x",
                StopReason.FINAL_ANSWER, null, null, new RewardBreakdown(Map.of(), reward));
    }

    static List<List<Trajectory>> groups(boolean flat, boolean matchingLogprobs) {
        List<List<Trajectory>> out = new ArrayList<>();
        for (String task : List.of("q1", "q2")) {
            List<Trajectory> g = new ArrayList<>();
            for (int k = 0; k < 4; k++) g.add(rollout(task, k, flat ? 1 : k % 2, 6, matchingLogprobs));
            out.add(g);
        }
        return out;
    }

    private static BatchTrained trained(TestProbe<LearnerProtocol.TrainReply> replies) {
        return (BatchTrained) replies.receiveMessage(Duration.ofSeconds(30));
    }

    /** A learner of the run in {@code runDir} that opens at its latest checkpoint, as the cluster's learner singleton does. */
    private Learner.RunOpener opener(GrpoSettings settings) {
        return dir -> {
            NDManager root = NDManager.newBaseManager();
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
            GrpoTrainer trainer = new GrpoTrainer(model, root, settings, TEMPLATE, 0);
            java.util.Optional<Path> latest = Checkpoints.latest(dir);
            if (latest.isPresent()) {
                ModelWeights.load(model, latest.get().resolve(Checkpoints.MODEL));
                trainer.restore(latest.get(), GrpoTrainer.Resume.read(latest.get()));
            }
            return new Learner.OpenRun(trainer, new Learner.Checkpointing(dir, 2), null);
        };
    }

    @Test
    void aLearnerThatCameBackFromACheckpointAsksForWhatItMissedAndNeverTrainsABatchTwice(@TempDir Path runDir) throws Exception {
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo.learning-rate = 1e-3")
                .withFallback(ConfigFactory.load()), 16);
        TestProbe<WeightsProtocol.SourceCommand> source = kit.createTestProbe(WeightsProtocol.SourceCommand.class);
        TestProbe<LearnerProtocol.TrainReply> replies = kit.createTestProbe(LearnerProtocol.TrainReply.class);
        String run = runDir.toString();
        ActorRef<LearnerProtocol.Command> first = kit.spawn(Learner.create(opener(settings), source.getRef(), "node-a"), "first",
                DispatcherSelector.fromConfig("agentswarm.learner-dispatcher"));
        for (int step = 0; step < 3; step++) {
            first.tell(new TrainBatch(step, groups(false, true), 0, step, run, replies.getRef()));
            BatchTrained r = trained(replies);
            assertEquals(step + 1, r.step());
            assertEquals("node-a", r.node());
            assertEquals(step + 1 >= 2 ? 2 : 0, r.checkpointStep(), "checkpoint every 2 steps");
        }
        kit.stop(first); // its node is gone; the singleton starts again elsewhere, at the checkpoint of step 2

        ActorRef<LearnerProtocol.Command> second = kit.spawn(Learner.create(opener(settings), source.getRef(), "node-b"), "second",
                DispatcherSelector.fromConfig("agentswarm.learner-dispatcher"));
        second.tell(new TrainBatch(9, groups(false, true), 0, 3, run, replies.getRef()));
        LearnerProtocol.Behind behind = (LearnerProtocol.Behind) replies.receiveMessage(Duration.ofSeconds(60));
        assertEquals(2, behind.step(), "opened at the checkpoint");
        assertEquals("node-b", behind.node());
        source.receiveSeveralMessages(3); // the three updates of the first learner
        source.expectNoMessage(Duration.ofMillis(200));

        second.tell(new TrainBatch(2, groups(false, true), 0, 2, run, replies.getRef())); // the one it missed
        assertEquals(3, trained(replies).step());
        second.tell(new TrainBatch(2, groups(false, true), 0, 2, run, replies.getRef())); // sent again: already trained
        BatchTrained again = trained(replies);
        assertEquals(3, again.step(), "not trained twice");
        second.tell(new TrainBatch(9, groups(false, true), 0, 3, run, replies.getRef()));
        assertEquals(4, trained(replies).step());
        assertEquals(2, source.receiveSeveralMessages(2).size(), "one publication per update: steps 3 and 4");
        source.expectNoMessage(Duration.ofMillis(200));
        kit.stop(second);
    }

    @Test
    void aBatchInPartsIsTrainedOnceAllItsPartsAreHere(@TempDir Path runDir) throws Exception {
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo.learning-rate = 1e-3")
                .withFallback(ConfigFactory.load()), 16);
        TestProbe<WeightsProtocol.SourceCommand> source = kit.createTestProbe(WeightsProtocol.SourceCommand.class);
        TestProbe<LearnerProtocol.TrainReply> replies = kit.createTestProbe(LearnerProtocol.TrainReply.class);
        ActorRef<LearnerProtocol.Command> learner = kit.spawn(Learner.create(opener(settings), source.getRef(), "node-a"), "parts",
                DispatcherSelector.fromConfig("agentswarm.learner-dispatcher"));
        TrainBatch whole = new TrainBatch(5, groups(false, true), 0, 0, runDir.toString(), replies.getRef());
        List<TrainBatch> parts = whole.split(1); // a group per part
        assertEquals(2, parts.size());
        learner.tell(parts.get(1)); // out of order: nothing trains until both are here
        replies.expectNoMessage(Duration.ofMillis(300));
        learner.tell(parts.get(0));
        BatchTrained r = trained(replies);
        assertNull(r.error());
        assertEquals(1, r.step());
        assertEquals(48, r.metrics().get("tokens"), 1e-9, "both groups trained together: 8 completions of 6 tokens");
        kit.stop(learner);
    }

    @Test
    void eachUpdatePublishesTheNextVersionAndReportsItsMetrics(@TempDir Path runDir) throws Exception {
        TestProbe<WeightsProtocol.SourceCommand> source = kit.createTestProbe(WeightsProtocol.SourceCommand.class);
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo.learning-rate = 1e-3")
                .withFallback(ConfigFactory.load()), 16);
        ActorRef<LearnerProtocol.Command> learner = kit.spawn(Learner.create(() -> {
            NDManager root = NDManager.newBaseManager();
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
            return new GrpoTrainer(model, root, settings, TEMPLATE, 0);
        }, source.getRef(), new Learner.Checkpointing(runDir, 2)), "learner", DispatcherSelector.fromConfig("agentswarm.learner-dispatcher"));

        TestProbe<LearnerProtocol.TrainReply> replies = kit.createTestProbe(LearnerProtocol.TrainReply.class);
        learner.tell(new TrainBatch(0, groups(false, true), 0, replies.getRef()));
        BatchTrained first = trained(replies);
        assertNull(first.error());
        assertEquals(1, first.version());
        assertTrue(first.published());
        assertEquals(48, first.metrics().get("tokens"), 1e-9, "8 completions of 6 tokens");
        assertEquals(0.5, first.metrics().get("reward_mean"), 1e-9);
        assertTrue(first.metrics().get("grad_norm") > 0);
        double entropy = first.metrics().get("entropy");
        assertTrue(entropy > 0 && entropy <= Math.log(ModelConfig.preset("tiny").vocab()), "entropy " + entropy);
        WeightsSource.Publish w = source.expectMessageClass(WeightsSource.Publish.class, Duration.ofSeconds(10));
        assertEquals(1, w.version());
        assertEquals(1, ModelWeights.versionOf(SafetensorsFile.decode(w.bytes())), "the version travels in the file too");

        learner.tell(new TrainBatch(0, groups(false, false), 0, replies.getRef()));
        BatchTrained refused = trained(replies);
        assertTrue(refused.error().contains("log-probs for 6 tokens"), refused.error());
        assertEquals(1, refused.version(), "a refused batch changes nothing");

        learner.tell(new TrainBatch(0, groups(true, true), 0, replies.getRef()));
        BatchTrained nothing = trained(replies);
        assertFalse(nothing.published(), "every group scored the same: dynamic sampling drops them all");
        assertEquals(2, nothing.metrics().get("groups_dropped"), 1e-9);
        assertEquals(1, nothing.version());
        source.expectNoMessage(Duration.ofMillis(300));

        learner.tell(new TrainBatch(0, groups(false, true), 0, replies.getRef()));
        assertEquals(2, trained(replies).version());
        assertEquals(2, source.expectMessageClass(WeightsSource.Publish.class, Duration.ofSeconds(10)).version());

        // Every second update is checkpointed, with the sender's data cursor; a checkpoint can also be asked for.
        Path second = Checkpoints.latest(runDir).orElseThrow();
        assertEquals("step-2", second.getFileName().toString());
        assertEquals(2, Checkpoints.readJson(second).get("version").asLong());
        TestProbe<Checkpointed> saved = kit.createTestProbe(Checkpointed.class);
        learner.tell(new Checkpoint(17, saved.getRef()));
        Checkpointed c = saved.receiveMessage(Duration.ofSeconds(30));
        assertNull(c.error());
        assertEquals(17, Checkpoints.readJson(Path.of(c.path())).get("data_cursor").asLong());
    }

    /** With β > 0 the checkpoint must also bring back the frozen reference: a fresh one would be the checkpoint's weights. */
    @ParameterizedTest(name = "beta = {0}")
    @ValueSource(doubles = {0.0, 0.5})
    void aTrainerRestoredFromItsCheckpointGoesOnWithTheSameStepVersionAndMoments(double beta, @TempDir Path runDir) throws Exception {
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo { learning-rate = 1e-3, beta = "
                + beta + " }").withFallback(ConfigFactory.load()), 16);
        Path checkpoint;
        byte[] afterThird;
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
            try (GrpoTrainer t = new GrpoTrainer(model, root, settings, TEMPLATE, 0)) {
                t.train(groups(false, true));
                t.train(groups(false, true));
                checkpoint = t.checkpoint(runDir, 5);
                afterThird = t.train(groups(false, true)).weights();
            }
        }
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 99);
            ModelWeights.load(model, checkpoint.resolve(Checkpoints.MODEL));
            try (GrpoTrainer t = new GrpoTrainer(model, root, settings, TEMPLATE, 0)) {
                t.restore(checkpoint, GrpoTrainer.Resume.read(checkpoint));
                assertEquals(2, t.steps());
                assertEquals(2, t.version());
                GrpoTrainer.Result third = t.train(groups(false, true));
                assertEquals(3, third.version());
                assertTrue(java.util.Arrays.equals(afterThird, third.weights()), "the resumed third update is the uninterrupted one");
            }
        }
    }

    @Test
    void withBetaTheKlIsTakenAgainstTheFrozenStartingPolicy(@TempDir Path runDir) throws Exception {
        GrpoSettings withKl = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo { learning-rate = 1e-2, beta = 0.5 }")
                .withFallback(ConfigFactory.load()), 16);
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
            byte[] start = ModelWeights.export(model, 0);
            Path checkpoint;
            try (GrpoTrainer t = new GrpoTrainer(model, root, withKl, TEMPLATE, 0)) {
                assertEquals(0.0, t.train(groups(false, true)).metrics().get("kl"), 1e-7, "the first update starts at the reference");
                double kl = t.train(groups(false, true)).metrics().get("kl");
                assertTrue(kl > 1e-6, "the policy has moved away from the reference: kl " + kl);
                checkpoint = t.checkpoint(runDir, 0);
            }
            var saved = SafetensorsFile.read(checkpoint.resolve(Checkpoints.REFERENCE));
            assertTrue(java.util.Arrays.equals(bytesOf(SafetensorsFile.decode(start).tensors().get("embed.weight")),
                    bytesOf(saved.tensors().get("embed.weight"))), "the reference saved is the starting policy, untouched by the updates");

            // A checkpoint written without a reference cannot anchor a β > 0 run: refused by name.
            GrpoSettings noKl = GrpoSettings.fromConfig(ConfigFactory.load(), 16);
            Path plain;
            try (GrpoTrainer t = new GrpoTrainer(model, root, noKl, TEMPLATE, 0)) {
                plain = t.checkpoint(runDir.resolve("plain"), 0);
            }
            try (GrpoTrainer t = new GrpoTrainer(model, root, withKl, TEMPLATE, 0)) {
                var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> t.restore(plain, GrpoTrainer.Resume.read(plain)));
                assertTrue(e.getMessage().contains("reference.safetensors") && e.getMessage().contains("beta = 0"), e.getMessage());
            }
        }
    }

    @Test
    void aCheckpointCarriesTheExportedLayoutOrIsNotWrittenAtAll(@TempDir Path runDir) throws Exception {
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.load(), 16);
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), root, 1);
            try (GrpoTrainer t = new GrpoTrainer(model, root, settings, TEMPLATE, 0)) {
                t.train(groups(false, true));
                t.exportCheckpointsWith((m, folder) -> ModelWeights.save(m, 42, folder.resolve("weights.safetensors")));
                Path checkpoint = t.checkpoint(runDir, 0);
                var exported = SafetensorsFile.read(checkpoint.resolve(Checkpoints.HF).resolve("weights.safetensors"));
                var saved = SafetensorsFile.read(checkpoint.resolve(Checkpoints.MODEL));
                assertTrue(java.util.Arrays.equals(bytesOf(saved.tensors().get("embed.weight")), bytesOf(exported.tensors().get("embed.weight"))),
                        "the export holds the checkpoint's weights");
                // An export that fails leaves the last complete checkpoint current and no half-written one.
                t.train(groups(false, true));
                t.exportCheckpointsWith((m, folder) -> {
                    throw new java.io.IOException("disk full");
                });
                org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> t.checkpoint(runDir, 0));
                assertEquals(checkpoint, Checkpoints.latest(runDir).orElseThrow());
                try (var entries = java.nio.file.Files.list(Checkpoints.folder(runDir))) {
                    assertEquals(List.of("latest", "step-1"), entries.map(p -> p.getFileName().toString()).sorted().toList());
                }
            }
        }
    }

    private static byte[] bytesOf(SafetensorsFile.Tensor t) {
        java.nio.ByteBuffer b = t.data().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void eachUpdateRecordsItsTimeAndLossOnTheNode() {
        // A node of its own, so that only this learner's updates are on its registry.
        ActorTestKit own = ActorTestKit.create("learner-meters", kit.system().settings().config());
        try {
            GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo.learning-rate = 1e-3")
                    .withFallback(ConfigFactory.load()), 16);
            TestProbe<WeightsProtocol.SourceCommand> source = own.createTestProbe(WeightsProtocol.SourceCommand.class);
            ActorRef<LearnerProtocol.Command> learner = own.spawn(Learner.create(() -> {
                NDManager root = NDManager.newBaseManager();
                return new GrpoTrainer(CausalLm.create(ModelConfig.preset("tiny"), root, 1), root, settings, TEMPLATE, 0);
            }, source.getRef(), new Learner.Checkpointing(null, 0)), "learner", DispatcherSelector.fromConfig("agentswarm.learner-dispatcher"));
            io.micrometer.core.instrument.MeterRegistry registry = dev.agentswarm.core.metrics.NodeMetrics.get(own.system()).registry();
            LearnerMeters.of(own.system()); // registered now rather than when the learner's setup runs, to read the loss before any update
            assertTrue(Double.isNaN(registry.get(LearnerMeters.LOSS).gauge().value()), "no loss before the first update");
            TestProbe<LearnerProtocol.TrainReply> replies = own.createTestProbe(LearnerProtocol.TrainReply.class);
            long before = System.nanoTime();
            learner.tell(new TrainBatch(0, groups(false, true), 0, replies.getRef()));
            BatchTrained first = trained(replies);
            learner.tell(new TrainBatch(1, groups(false, true), 0, replies.getRef()));
            BatchTrained second = trained(replies);
            long wall = System.nanoTime() - before;
            var steps = registry.get(LearnerMeters.STEP_DURATION).timer();
            assertEquals(2, steps.count());
            double recorded = steps.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS);
            assertTrue(recorded > 0 && recorded <= wall, recorded + " ns recorded of " + wall + " ns");
            assertEquals(second.metrics().get("loss"), registry.get(LearnerMeters.LOSS).gauge().value(), 1e-12, "the last update's loss");
            assertNull(first.error());
            learner.tell(new TrainBatch(2, groups(false, false), 0, replies.getRef()));
            assertTrue(trained(replies).error() != null, "a refused batch");
            assertEquals(2, steps.count(), "a refused batch is no update");
            learner.tell(new TrainBatch(3, groups(true, true), 0, replies.getRef()));
            assertFalse(trained(replies).published(), "every group flat: nothing to learn from");
            assertEquals(2, steps.count(), "a batch without an update is no step");
        } finally {
            own.shutdownTestKit();
        }
    }
}
