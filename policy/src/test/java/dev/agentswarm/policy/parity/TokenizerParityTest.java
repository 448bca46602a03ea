package dev.agentswarm.policy.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DJL's binding of Hugging Face's Rust tokenizers (our {@link HfTokenizer}) against Hugging Face's
 * JavaScript tokenizers on thousands of generated strings per model: the same ids with and without
 * special tokens, decoding gives the text back (Qwen's: its NFC form, as its normalizer says), and the
 * bytes of the tokens add up to that text's UTF-8 (what streaming generation relies on).
 */
class TokenizerParityTest {

    private static final int CASES = 2000;

    private static final Pattern QWEN_ADDED = Pattern.compile("<\\|im_start\\|>|<\\|im_end\\|>|<\\|endoftext\\|>|</?think>|<tool_call>");

    /**
     * NFC of the text between added tokens: Hugging Face matches added tokens in the raw text first and
     * normalizes only what lies between them, so "<|im_start|>" followed by U+0338 stays a special
     * token although NFC of the whole string would compose ">" + U+0338 into "≯".
     */
    private static String nfcAroundAddedTokens(String text) {
        StringBuilder sb = new StringBuilder();
        Matcher m = QWEN_ADDED.matcher(text);
        int at = 0;
        while (m.find()) {
            sb.append(Normalizer.normalize(text.substring(at, m.start()), Normalizer.Form.NFC)).append(m.group());
            at = m.end();
        }
        return sb.append(Normalizer.normalize(text.substring(at), Normalizer.Form.NFC)).toString();
    }

    private static String codePoints(String s) {
        return s.codePoints().mapToObj(Integer::toHexString).toList().toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen3", "llama3_1", "gemma3"})
    void encodesLikeTransformersJs(String model) throws Exception {
        TextCorpus corpus = new TextCorpus(model.hashCode());
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < CASES; i++) texts.add(corpus.next());
        List<ObjectNode> requests = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            requests.add(Json.MAPPER.createObjectNode().put("op", "encode").put("model", model)
                    .put("text", texts.get(i)).put("add_special_tokens", i % 10 == 0));
        }
        List<JsonNode> answers;
        try (ReferenceProcess js = ReferenceProcess.node()) {
            answers = js.ask(requests);
        }
        int idMismatches = 0;
        int roundTrip = 0;
        int bytesMismatches = 0;
        int normalized = 0;
        long tokens = 0;
        long nanos = 0;
        List<String> report = new ArrayList<>();
        try (HfTokenizer tok = HfTokenizer.load(HfFixtures.model(model))) {
            for (int i = 0; i < texts.size(); i++) {
                String text = texts.get(i);
                long t0 = System.nanoTime();
                int[] ids = tok.encode(text, i % 10 == 0);
                nanos += System.nanoTime() - t0;
                tokens += ids.length;
                int[] expected = Json.MAPPER.convertValue(answers.get(i).get("ids"), int[].class);
                if (!Arrays.equals(ids, expected)) {
                    idMismatches++;
                    if (report.size() < 5) report.add(Json.MAPPER.valueToTree(text) + ": ours " + Arrays.toString(ids) + " vs " + Arrays.toString(expected));
                }
                int[] plain = i % 10 == 0 ? tok.encode(text) : ids;
                // Qwen's tokenizer.json normalizes to NFC before encoding: that form is what comes back.
                String back = model.equals("qwen3") ? nfcAroundAddedTokens(text) : text;
                if (!back.equals(text)) normalized++;
                if (!tok.decode(plain).equals(back)) {
                    roundTrip++;
                    if (report.size() < 10) report.add("decode " + codePoints(text) + " -> " + codePoints(tok.decode(plain)) + ", NFC " + codePoints(back));
                }
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                for (int id : plain) bytes.writeBytes(tok.tokenBytes(id));
                if (!Arrays.equals(bytes.toByteArray(), back.getBytes(StandardCharsets.UTF_8))) {
                    bytesMismatches++;
                    if (report.size() < 15) report.add("bytes " + Json.MAPPER.valueToTree(text));
                }
            }
        }
        System.out.printf("tokenizer parity %s: %d strings (%d changed by NFC), %d tokens, %d id mismatches with transformers.js,"
                        + " %d decode round-trip failures, %d token-bytes mismatches; DJL encode %.1f µs per string%n",
                model, texts.size(), normalized, tokens, idMismatches, roundTrip, bytesMismatches, nanos / 1e3 / texts.size());
        report.forEach(System.out::println);
        assertEquals(0, idMismatches, String.join("\n", report));
        assertEquals(0, roundTrip, String.join("\n", report));
        assertEquals(0, bytesMismatches, String.join("\n", report));
    }
}
