package dev.agentswarm.policy.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.chat.JinjaChatTemplate;
import dev.agentswarm.policy.chat.jinja.TemplateError;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Our Jinja renderer against Python Jinja2 set up as transformers sets it up (the reference), and
 * against Hugging Face's JavaScript {@code apply_chat_template}, on the real templates of Qwen3,
 * Llama-3.1 and Gemma-3 plus a Llama-3.1-style tool template, over generated conversations; then
 * the ids of our rendered text against transformers.js' {@code apply_chat_template(tokenize:true)}.
 */
class TemplateParityTest {

    /** One model's cases: its folder, the template (null: the folder's own) and the conversation family. */
    private record Family(String model, String template, String family, int cases) {}

    private record Case(Family family, ArrayNode messages, ArrayNode tools, boolean addGenerationPrompt, Map<String, Object> kwargs) {}

    private static String resource(String name) throws Exception {
        try (InputStream in = TemplateParityTest.class.getClassLoader().getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void rendersLikePythonJinja2AndTransformersJs() throws Exception {
        List<Family> families = List.of(
                new Family("qwen3", null, "chatml", 300),
                new Family("gemma3", null, "alternating", 80),
                new Family("llama3_1", null, "alternating", 40),
                new Family("llama3_1", resource("chat/llama31-style.jinja"), "llama", 180));
        Conversations gen = new Conversations(20261125L);
        List<Case> cases = new ArrayList<>();
        for (Family f : families) {
            for (int i = 0; i < f.cases(); i++) {
                boolean thinking = f.model().equals("qwen3");
                ArrayNode msgs = gen.conversation(f.family(), thinking);
                ArrayNode tools = f.family().equals("alternating") ? null : gen.tools(3);
                Map<String, Object> kwargs = new LinkedHashMap<>();
                if (thinking && gen.coin()) kwargs.put("enable_thinking", gen.coin());
                if (f.template() != null) {
                    kwargs.put("date_string", "26 Jul 2024");
                    if (gen.coin()) kwargs.put("tools_in_user_message", gen.coin());
                }
                cases.add(new Case(f, msgs, tools, gen.coin(), kwargs));
            }
        }
        cases.addAll(handWritten(families));

        Map<String, JinjaChatTemplate> templates = new LinkedHashMap<>();
        Map<String, JsonNode> configs = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        for (Family f : families) {
            Path dir = HfFixtures.model(f.model());
            JsonNode config = Json.MAPPER.readTree(dir.resolve("tokenizer_config.json").toFile());
            String source = f.template() != null ? f.template() : config.get("chat_template").asText();
            templates.put(key(f), JinjaChatTemplate.of(source, null, config));
            configs.put(key(f), config);
            sources.put(key(f), source);
        }

        List<ObjectNode> pyRequests = new ArrayList<>();
        List<ObjectNode> jsRequests = new ArrayList<>();
        List<ObjectNode> jsIdRequests = new ArrayList<>();
        for (Case c : cases) {
            ObjectNode py = Json.MAPPER.createObjectNode();
            py.put("template", sources.get(key(c.family())));
            py.set("config", configs.get(key(c.family())));
            py.set("messages", c.messages());
            py.set("tools", c.tools());
            py.put("add_generation_prompt", c.addGenerationPrompt());
            py.set("kwargs", Json.MAPPER.valueToTree(c.kwargs()));
            pyRequests.add(py);
            ObjectNode js = Json.MAPPER.createObjectNode();
            js.put("op", "render");
            js.put("model", c.family().model());
            if (c.family().template() != null) js.put("template", c.family().template());
            js.set("messages", c.messages());
            if (c.tools() != null) js.set("tools", c.tools());
            js.put("add_generation_prompt", c.addGenerationPrompt());
            js.set("kwargs", Json.MAPPER.valueToTree(c.kwargs()));
            jsRequests.add(js);
            jsIdRequests.add(js.deepCopy().put("tokenize", true));
        }

        long t0 = System.nanoTime();
        List<String> ours = new ArrayList<>();
        for (Case c : cases) {
            try {
                ours.add(templates.get(key(c.family())).render(c.messages(), c.tools(), c.addGenerationPrompt(), c.kwargs()));
            } catch (TemplateError e) {
                ours.add(null);
            }
        }
        long renderNanos = System.nanoTime() - t0;

        // Both references at once: Python renders while Node.js loads its tokenizers.
        ReferenceProcess python = ReferenceProcess.pythonJinja();
        CompletableFuture<List<JsonNode>> pyAnswers = CompletableFuture.supplyAsync(() -> {
            try (python) {
                return python.ask(pyRequests);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        List<JsonNode> js;
        List<JsonNode> jsIds;
        try (ReferenceProcess p = ReferenceProcess.node()) {
            js = p.ask(jsRequests);
            jsIds = p.ask(jsIdRequests);
        }
        List<JsonNode> py = pyAnswers.get(120, TimeUnit.SECONDS);

        Map<String, HfTokenizer> tokenizers = new LinkedHashMap<>();
        int pyMismatch = 0;
        int jsMismatch = 0;
        int idMismatch = 0;
        int errors = 0;
        int idCases = 0;
        List<String> report = new ArrayList<>();
        List<String> jsExamples = new ArrayList<>();
        try {
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                String mine = ours.get(i);
                String theirs = py.get(i).has("text") ? py.get(i).get("text").asText() : null;
                if (theirs == null) errors++;
                if (!same(mine, theirs)) {
                    pyMismatch++;
                    if (report.size() < 8) report.add("python #" + i + " " + key(c.family()) + ": " + diff(mine, theirs, py.get(i)));
                }
                String jsText = js.get(i).has("text") ? js.get(i).get("text").asText() : null;
                if (!same(mine, jsText)) {
                    jsMismatch++;
                    if (jsExamples.size() < 6) jsExamples.add("transformers.js #" + i + " " + key(c.family()) + ": " + diff(mine, jsText, js.get(i)));
                }
                // Token ids: where the texts agree, our ids of our text must be transformers.js' ids;
                // where they do not, our tokenizer must still give its ids for its own text.
                String tokenized = same(mine, jsText) ? mine : jsText;
                if (tokenized != null && jsIds.get(i).has("ids")) {
                    HfTokenizer tok = tokenizers.computeIfAbsent(c.family().model(), m -> load(HfFixtures.model(m)));
                    int[] expected = Json.MAPPER.convertValue(jsIds.get(i).get("ids"), int[].class);
                    idCases++;
                    if (!Arrays.equals(tok.encode(tokenized), expected)) {
                        idMismatch++;
                        if (report.size() < 12) report.add("ids #" + i + " " + key(c.family()));
                    }
                }
            }
        } finally {
            tokenizers.values().forEach(HfTokenizer::close);
        }
        System.out.printf("template parity: %d conversations (%d raise an error in Python too), %d differ from Python Jinja2;"
                        + " %d differ from transformers.js (Python agrees with us on them); %d of %d id sequences differ from"
                        + " transformers.js; our renders took %.1f ms%n",
                cases.size(), errors, pyMismatch, jsMismatch, idMismatch, idCases, renderNanos / 1e6);
        report.forEach(System.out::println);
        // transformers.js is not the reference for rendering: @huggingface/jinja's str.lstrip(chars) and
        // rstrip(chars) ignore their argument (Qwen3 strips '\n' only; it strips every whitespace), and
        // JavaScript numbers print 95.0 as 95 in tojson. Python Jinja2 is what transformers runs.
        jsExamples.forEach(System.out::println);
        assertEquals(0, pyMismatch, "renders that differ from Python Jinja2:\n" + String.join("\n", report));
        assertEquals(0, idMismatch, "ids that differ from transformers.js:\n" + String.join("\n", report));
        assertTrue(cases.size() > 500);
    }

    private static HfTokenizer load(Path dir) {
        try {
            return HfTokenizer.load(dir);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    private static String key(Family f) {
        return f.model() + (f.template() == null ? "" : "+llama31-style");
    }

    private static boolean same(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }

    private static String diff(String mine, String theirs, JsonNode answer) {
        if (mine == null || theirs == null) return "ours " + (mine == null ? "failed" : "rendered") + ", reference " + answer;
        int i = 0;
        while (i < Math.min(mine.length(), theirs.length()) && mine.charAt(i) == theirs.charAt(i)) i++;
        return "first difference at " + i + ": ours " + Json.MAPPER.valueToTree(snippet(mine, i)) + " vs "
                + Json.MAPPER.valueToTree(snippet(theirs, i));
    }

    private static String snippet(String s, int at) {
        return s.substring(Math.max(0, at - 40), Math.min(s.length(), at + 60));
    }

    /** Cases worth keeping whatever the generator does. */
    private static List<Case> handWritten(List<Family> families) {
        Family qwen = families.get(0);
        Family llama = families.get(3);
        List<Case> out = new ArrayList<>();
        ArrayNode m = Json.MAPPER.createArrayNode();
        m.addObject().put("role", "user").put("content", "What is 2+2?");
        m.addObject().put("role", "assistant").put("content", "<think>\nadd\n</think>\n\n4");
        m.addObject().put("role", "user").put("content", "And 3+3?");
        out.add(new Case(qwen, m, null, true, Map.of("enable_thinking", false)));
        out.add(new Case(qwen, m, null, true, Map.of()));
        out.add(new Case(llama, m, null, true, Map.of("date_string", "26 Jul 2024")));
        out.add(new Case(llama, Json.MAPPER.createArrayNode(), null, false, Map.of("date_string", "26 Jul 2024")));
        return out;
    }
}
