package dev.agentswarm.policy.embedded;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.chat.ChatFormat;
import dev.agentswarm.policy.chat.HfChatFormat;
import dev.agentswarm.policy.model.HfReference;
import dev.agentswarm.policy.parity.HfFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Hugging Face folder as the embedded model: a tiny random Qwen3-shaped checkpoint (vocab_size
 * 151936, as Qwen3's) beside Qwen3's real tokenizer.json and tokenizer_config.json. The chat format
 * renders with the model's own template and trains only what each assistant message adds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HfEmbeddedModelTest {

    @TempDir
    static Path dir;
    private EmbeddedModel model;
    private HfChatFormat format;

    @BeforeAll
    void load() throws Exception {
        Path tokenizer = HfFixtures.model("qwen3");
        HfReference.make(dir, HfReference.Spec.qwen3().withVocab(151936).withHidden(32).withHeads(2, 1).withHeadDim(16)
                .withFfn(48).withTie(true).withSeed(3));
        for (String f : List.of("tokenizer.json", "tokenizer_config.json")) Files.copy(tokenizer.resolve(f), dir.resolve(f));
        model = EmbeddedModel.fromModelDir(dir, 512, Map.of("enable_thinking", false), null);
        format = (HfChatFormat) model.template();
    }

    @AfterAll
    void close() {
        if (model != null) model.close();
    }

    @Test
    void theFolderIsTheModelItsTokenizerAndItsTemplate() {
        assertEquals(151936, model.model().config().vocab());
        assertEquals(512, model.model().config().context());
        assertTrue(model.describe().contains("Qwen3ForCausalLM"), model.describe());
        int imEnd = model.tokenizer().encode("<|im_end|>")[0];
        assertTrue(java.util.Arrays.stream(format.stopTokenIds()).anyMatch(id -> id == imEnd), "<|im_end|> stops a turn");
        String text = "naïve café — 東京 🙂";
        assertEquals(text, new String(bytesOf(model.tokenizer().encode(text)), StandardCharsets.UTF_8));
    }

    @Test
    void aPromptIsTheRenderedTemplateEncoded() {
        List<Message> messages = List.of(Message.system("You are terse."), Message.user("What is 6 * 7?"));
        String rendered = format.render(messages, List.of(), true);
        assertEquals("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n"
                + "<|im_start|>assistant\n<think>\n\n</think>\n\n", rendered);
        assertArrayEquals(model.tokenizer().encode(rendered), format.prompt(messages, List.of()));
    }

    @Test
    void trainingCoversEachAssistantMessageAndItsEndTokenOnly() throws Exception {
        ToolSpec calc = new ToolSpec("calculator", "Evaluates arithmetic", Json.parse(
                "{\"type\":\"object\",\"properties\":{\"expression\":{\"type\":\"string\"}}}"));
        List<Message> messages = List.of(Message.user("What is 6 * 7?"),
                Message.assistant("", List.of(new ToolCall("c1", "calculator", Json.parse("{\"expression\":\"6 * 7\"}")))),
                Message.tool("c1", "calculator", "42"),
                Message.assistant("The answer is 42."));
        ChatFormat.Rendered r = format.conversation(messages, List.of(calc));
        StringBuilder trained = new StringBuilder();
        for (int i = 0; i < r.ids().length; i++) {
            if (r.lossMask()[i] == 1) trained.append(model.tokenizer().decode(new int[] {r.ids()[i]}));
        }
        // Each assistant turn after "<|im_start|>assistant\n" through its <|im_end|>; the last one after the
        // empty thinking block the generation prompt writes (enable_thinking = false), as the model was asked.
        assertEquals("<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6 * 7\"}}\n</tool_call><|im_end|>"
                + "The answer is 42.<|im_end|>", trained.toString());
        assertEquals(0, format.untrainedTurns());
    }

    private byte[] bytesOf(int[] ids) {
        var out = new java.io.ByteArrayOutputStream();
        for (int id : ids) out.writeBytes(model.tokenizer().tokenBytes(id));
        return out.toByteArray();
    }
}
