package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.ParameterStore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.policy.hf.HfCheckpoint;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.InferenceThreads;
import dev.agentswarm.policy.model.ModelWeights;
import dev.agentswarm.testkit.TinyHfModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commands that take a Hugging Face folder with --model: generate, logprobs and dpo. */
class HfModelCliTest {

    @Test
    void generatedTokensCarryTheLogProbsTheModelGivesThem(@TempDir Path dir) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny-qwen3"), 5);
        // Sampled at temperature 1 with nothing cut: the sampler's log-probs are the model's, from the cached decode path.
        CliTest.Result g = swarm("generate", "--model", model.toString(), "--prompt", "what is 2 + 2 ?", "--chat", "--new", "6",
                "--temperature", "1", "--seed", "3", "--json");
        assertEquals(0, g.exit(), g.err());
        JsonNode out = g.json();
        int[] prompt = ints(out.get("prompt_ids"));
        int[] ids = ints(out.get("ids"));
        assertTrue(ids.length >= 1 && ids.length <= 6, out.toString());
        assertEquals(1, prompt[0], "the chat template's <|im_start|> opens the prompt");
        // Scoring prompt + generated in one full pass gives each generated token the log-prob the decoder sampled it with.
        int[] all = new int[prompt.length + ids.length];
        System.arraycopy(prompt, 0, all, 0, prompt.length);
        System.arraycopy(ids, 0, all, prompt.length, ids.length);
        CliTest.Result s = swarm("logprobs", "--model", model.toString(), "--ids", join(all), "--json");
        assertEquals(0, s.exit(), s.err());
        JsonNode scored = s.json().get("logprobs");
        assertTrue(scored.get(0).isNull(), "the first token has no prefix");
        for (int i = 0; i < ids.length; i++) {
            assertEquals(out.get("sampling_logprobs").get(i).asDouble(), scored.get(prompt.length + i).asDouble(), 1e-4, "token " + i);
            assertEquals(out.get("logprobs").get(i).asDouble(), scored.get(prompt.length + i).asDouble(), 1e-6, "token " + i);
        }
    }

    @Test
    void badInputIsRefusedByName(@TempDir Path dir) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny"), 1);
        CliTest.Result outside = swarm("logprobs", "--model", model.toString(), "--ids", "1,2,640");
        assertEquals(2, outside.exit());
        assertTrue(outside.err().contains("token id 640 outside the vocabulary 0.." + (TinyHfModel.VOCAB - 1)), outside.err());
        CliTest.Result both = swarm("generate", "--model", model.toString(), "--ids", "1", "--prompt", "hello");
        assertTrue(both.err().contains("exactly one of --ids and --prompt"), both.err());
        CliTest.Result notAModel = swarm("generate", "--model", dir.resolve("nothing").toString(), "--ids", "1");
        assertTrue(notAModel.err().contains("no folder at"), notAModel.err());
    }

    @Test
    void dpoOnAFolderWritesItsWeightsBackInHuggingFaceLayout(@TempDir Path dir) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny-qwen3"), 7);
        Path run = dir.resolve("run");
        CliTest.Result r = dpo(dir, model, run);
        assertEquals(0, r.exit(), r.err());
        Path hf = run.resolve("hf");
        for (String f : List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")) {
            assertTrue(Files.isRegularFile(hf.resolve(f)), f);
        }
        // The Hugging Face copy is the trained weights rounded to BF16: it scores as they do, to BF16's precision.
        InferenceThreads.noGradHere();
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm trained = HfCheckpoint.load(model, m, 64).model();
            ModelWeights.load(trained, run.resolve("model.safetensors"));
            CausalLm exported = HfCheckpoint.load(hf, m, 64).model();
            CausalLm start = HfCheckpoint.load(model, m, 64).model();
            long[] ids = {1, 4, 8, 9, 19, 12, 16, 2};
            ParameterStore ps = new ParameterStore(m, false);
            float[] a = trained.tokenLogProbs(ps, m.create(ids, new Shape(1, ids.length)), false).toFloatArray();
            float[] b = exported.tokenLogProbs(ps, m.create(ids, new Shape(1, ids.length)), false).toFloatArray();
            float[] c = start.tokenLogProbs(ps, m.create(ids, new Shape(1, ids.length)), false).toFloatArray();
            double moved = 0;
            for (int i = 0; i < a.length; i++) {
                assertEquals(a[i], b[i], 2e-2, "position " + i);
                moved = Math.max(moved, Math.abs(a[i] - c[i]));
            }
            assertTrue(moved > 1e-3, "DPO moved the model: " + moved);
        }
    }

    @Test
    void sftOnAFolderLearnsItsConversationsAndCheckpointsInBothLayouts(@TempDir Path dir) throws Exception {
        sft(dir, false);
    }

    @Test
    void sftOfALoraAdapterLeavesTheBaseAndWritesThePeftAdapter(@TempDir Path dir) throws Exception {
        sft(dir, true);
    }

    private static void sft(Path dir, boolean lora) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny-qwen3"), 9);
        Path data = dir.resolve("data.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        String[][] facts = {{"2 + 2", "4"}, {"4 + 4", "8"}, {"2 * 4", "8"}, {"4 + 6", "10"}, {"2 + 6", "8"}, {"6 + 4", "10"}};
        for (String[] f : facts) {
            lines.add("{\"messages\": [{\"role\": \"user\", \"content\": \"what is " + f[0] + " ?\"}, "
                    + "{\"role\": \"assistant\", \"content\": \"the answer is " + f[1] + "\"}]}");
        }
        Files.write(data, lines);
        Path run = dir.resolve("run");
        Path conf = dir.resolve("sft.conf");
        Files.writeString(conf, "agentswarm.sft { data = \"" + data + "\", seq-len = 64, micro-batch = 6, max-steps = 30, lr = 1e-2,"
                + " warmup-steps = 2, checkpoint-every = 30, run-dir = \"" + run + "\" }");
        List<String> args = new java.util.ArrayList<>(List.of("sft", "--config", conf.toString(), "--model", model.toString(), "--json"));
        if (lora) args.addAll(List.of("--lora-rank", "8", "--lora-alpha", "32"));
        CliTest.Result r = swarm(args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        List<String> metrics = Files.readAllLines(run.resolve("metrics.jsonl"));
        double first = dev.agentswarm.core.json.Json.parse(metrics.get(0)).get("loss").asDouble();
        double last = r.json().get("final_loss").asDouble();
        // An adapter over a frozen base whose tied head holds N(0, 0.02²) entries can move the logits only so far.
        assertTrue(last < (lora ? first * 0.9 : first / 3), "the loss falls: " + first + " → " + last);
        Path checkpoint = run.resolve("checkpoints/step-30");
        assertTrue(Files.isRegularFile(checkpoint.resolve("model.safetensors")), "the engine's own layout, to resume from");
        if (lora) {
            assertTrue(Files.isRegularFile(checkpoint.resolve("adapter/adapter_config.json")), "the adapter in PEFT's layout");
            var base = dev.agentswarm.policy.model.SafetensorsFile.read(checkpoint.resolve("model.safetensors")).tensors().get("blocks.1.mlp.down.weight");
            InferenceThreads.noGradHere();
            try (NDManager m = NDManager.newBaseManager()) {
                float[] start = HfCheckpoint.load(model, m, 64).model().namedParameters().get("blocks.1.mlp.down.weight").getArray().toFloatArray();
                float[] saved = new float[start.length];
                base.data().duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(saved);
                org.junit.jupiter.api.Assertions.assertArrayEquals(start, saved, 0f, "the base is the folder's, untouched");
            }
        } else {
            assertTrue(Files.isRegularFile(checkpoint.resolve("hf/model.safetensors")) && Files.isRegularFile(checkpoint.resolve("hf/tokenizer.json")),
                    "and the model's own, for transformers and vLLM");
        }
    }

    @Test
    void dpoWithLoraWritesThePeftAdapterAndTheMergedWeights(@TempDir Path dir) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny-qwen3"), 7);
        Path run = dir.resolve("run");
        CliTest.Result r = dpo(dir, model, run, "--lora-rank", "4", "--lora-targets", "q_proj,v_proj");
        assertEquals(0, r.exit(), r.err());
        JsonNode adapter = dev.agentswarm.core.json.Json.parse(Files.readString(run.resolve("adapter/adapter_config.json")));
        assertEquals("LORA", adapter.get("peft_type").asText());
        assertEquals(4, adapter.get("r").asInt());
        assertTrue(Files.isRegularFile(run.resolve("adapter/adapter_model.safetensors")));
        assertTrue(Files.isRegularFile(run.resolve("hf/model.safetensors")), "the merged model in Hugging Face's layout");
        // Only the adapted rows moved: k_proj (between q and v in the fused projection) and the MLP are the base's.
        InferenceThreads.noGradHere();
        try (NDManager m = NDManager.newBaseManager()) {
            CausalLm start = HfCheckpoint.load(model, m, 64).model();
            CausalLm merged = HfCheckpoint.load(model, m, 64).model();
            ModelWeights.load(merged, run.resolve("model.safetensors"));
            float[] before = start.namedParameters().get("blocks.0.mlp.up.weight").getArray().toFloatArray();
            float[] after = merged.namedParameters().get("blocks.0.mlp.up.weight").getArray().toFloatArray();
            org.junit.jupiter.api.Assertions.assertArrayEquals(before, after, 0f, "an MLP the adapter does not target");
            float[] q0 = start.namedParameters().get("blocks.0.attn.qkv.weight").getArray().toFloatArray();
            float[] q1 = merged.namedParameters().get("blocks.0.attn.qkv.weight").getArray().toFloatArray();
            boolean moved = false;
            for (int i = 0; i < 64 * 32; i++) moved |= q0[i] != q1[i]; // the query rows (4 heads × 16) × hidden 32
            assertTrue(moved, "the query rows took the adapter");
        }
        CliTest.Result bad = swarm("dpo", "--model", model.toString(), "--pairs", dir.resolve("pairs.jsonl").toString(), "--lora-rank", "0");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("rank"), bad.err());
    }

    /** Two steps of DPO on two pairs the tiny vocabulary spells, into {@code run}. */
    private static CliTest.Result dpo(Path dir, Path model, Path run, String... extra) throws Exception {
        Path pairs = dir.resolve("pairs.jsonl");
        Files.write(pairs, List.of(
                "{\"prompt\": \"what is 2 + 2 ?\", \"chosen\": \"4\", \"rejected\": \"no\"}",
                "{\"prompt\": \"what is 4 + 4 ?\", \"chosen\": \"8\", \"rejected\": \"yes\"}"));
        Path conf = dir.resolve("dpo.conf");
        Files.writeString(conf, "agentswarm.learner.dpo { steps = 2, pairs-per-step = 2, pairs-per-pass = 2, learning-rate = 1e-2 }");
        List<String> args = new java.util.ArrayList<>(List.of("dpo", "--model", model.toString(), "--pairs", pairs.toString(),
                "--config", conf.toString(), "--run-dir", run.toString(), "--json"));
        args.addAll(List.of(extra));
        return swarm(args.toArray(String[]::new));
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) out[i] = array.get(i).asInt();
        return out;
    }

    private static String join(int[] ids) {
        StringBuilder sb = new StringBuilder();
        for (int id : ids) sb.append(sb.length() == 0 ? "" : ",").append(id);
        return sb.toString();
    }
}
