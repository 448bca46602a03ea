package dev.agentswarm.learner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.learner.lora.TinyQwen3;
import dev.agentswarm.learner.rl.GrpoSettings;
import dev.agentswarm.learner.rl.GrpoTrainer;
import dev.agentswarm.learner.sft.Checkpoints;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.hf.PeftAdapter;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.LoraSettings;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GRPO trainer with LoRA: KL against the base (the adapter off), merged weights published,
 * the base untouched, and a checkpoint (base + PEFT adapter + moments) that resumes bit-exactly.
 */
class LoraGrpoTrainerTest {

    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());

    @Test
    void publishesMergedWeightsKeepsTheBaseAndResumesFromItsAdapter(@TempDir Path runDir) throws Exception {
        GrpoSettings settings = GrpoSettings.fromConfig(ConfigFactory.parseString("agentswarm.learner.grpo { learning-rate = 1e-2, beta = 0.5 }")
                .withFallback(ConfigFactory.load()), 16);
        LoraSettings lora = LoraSettings.allLinear(4, 8, 0);
        Path checkpoint;
        byte[] afterThird;
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = TinyQwen3.create(root, 1);
            Map<String, float[]> base = TinyQwen3.snapshot(model);
            try (GrpoTrainer t = new GrpoTrainer(model, root, settings, TEMPLATE, 0, lora)) {
                assertEquals(0.0, t.train(LearnerTest.groups(false, true)).metrics().get("kl"), 1e-7, "B = 0: the policy is its base");
                GrpoTrainer.Result second = t.train(LearnerTest.groups(false, true));
                assertTrue(second.metrics().get("kl") > 1e-6, "kl against the base: " + second.metrics().get("kl"));
                CausalLm served = CausalLm.allocate(TinyQwen3.CONFIG, root);
                ModelWeights.load(served, second.weights());
                float diff = TinyQwen3.maxAbsDiff(TinyQwen3.logits(model, root), TinyQwen3.logits(served, root));
                assertTrue(diff < 1e-5, "published weights are base + adapter: max |Δ logit| " + diff);
                checkpoint = t.checkpoint(runDir, 5);
                assertTrue(Files.isRegularFile(checkpoint.resolve(Checkpoints.ADAPTER).resolve(PeftAdapter.CONFIG)));
                assertFalse(Files.exists(checkpoint.resolve(Checkpoints.REFERENCE)), "the base is the reference: no copy saved");
                afterThird = t.train(LearnerTest.groups(false, true)).weights();
            }
            TinyQwen3.assertUnchanged(base, model);
        }
        try (NDManager root = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(TinyQwen3.CONFIG, root, 99);
            ModelWeights.load(model, checkpoint.resolve(Checkpoints.MODEL));
            try (GrpoTrainer t = new GrpoTrainer(model, root, settings, TEMPLATE, 0, lora)) {
                t.restore(checkpoint, GrpoTrainer.Resume.read(checkpoint));
                assertEquals(2, t.version());
                assertArrayEquals(afterThird, t.train(LearnerTest.groups(false, true)).weights(), "the resumed third update is the uninterrupted one");
            }
        }
    }
}
