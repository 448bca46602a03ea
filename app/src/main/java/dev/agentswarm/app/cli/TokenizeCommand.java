package dev.agentswarm.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.chat.JinjaChatTemplate;
import dev.agentswarm.policy.tokenizer.HfTokenizer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "tokenize", mixinStandardHelpOptions = true,
        description = {"Tokenizes with a Hugging Face model folder's own tokenizer and chat template, as transformers does.",
                "Reads JSON lines: {\"text\": …} (optionally \"add_special_tokens\": true) prints {\"ids\": […]};"
                        + " {\"messages\": […], \"tools\": […], \"add_generation_prompt\": true, …} prints {\"text\": <rendered>, \"ids\": […]},"
                        + " the ids of apply_chat_template(tokenize=True); other keys (enable_thinking, date_string…) go to the template.",
                "One output line per input line (blank lines skipped). A bad line prints {\"line\": N, \"error\": …} and the same"
                        + " on stderr; the other lines still run, and the exit code is 1."})
public final class TokenizeCommand implements Callable<Integer> {

    private static final Set<String> MESSAGE_KEYS = Set.of("messages", "tools", "add_generation_prompt");

    @Option(names = "--model", required = true, paramLabel = "DIR",
            description = "A model folder with tokenizer.json and tokenizer_config.json (and its chat template).")
    Path model;

    @Option(names = "--input", paramLabel = "FILE", description = "Read JSON lines from FILE instead of standard input.")
    Path input;

    @Spec
    CommandSpec spec;

    private JinjaChatTemplate template;

    @Override
    public Integer call() throws Exception {
        if (!Files.isDirectory(model)) throw new IllegalArgumentException("--model " + model + " is not a folder");
        if (input != null && !Files.isRegularFile(input)) throw new IllegalArgumentException("--input " + input + " does not exist");
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        int bad = 0;
        try (HfTokenizer tokenizer = HfTokenizer.load(model);
             BufferedReader reader = input != null ? Files.newBufferedReader(input, StandardCharsets.UTF_8)
                     : new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) continue;
                ObjectNode answer;
                try {
                    answer = answer(tokenizer, line);
                } catch (IOException | RuntimeException e) {
                    bad++;
                    String message = e.getMessage() != null ? e.getMessage() : e.toString();
                    spec.commandLine().getErr().println("line " + number + ": " + message);
                    answer = Json.MAPPER.createObjectNode().put("line", number).put("error", message);
                }
                out.println(Json.MAPPER.writeValueAsString(answer));
                out.flush();
            }
        }
        out.flush();
        if (bad > 0) spec.commandLine().getErr().println(bad + " line(s) failed");
        return bad > 0 ? 1 : 0;
    }

    private ObjectNode answer(HfTokenizer tokenizer, String line) throws IOException {
        JsonNode request;
        try {
            request = Json.MAPPER.readTree(line);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getOriginalMessage());
        }
        if (request == null || !request.isObject()) throw new IllegalArgumentException("expected a JSON object with \"text\" or \"messages\"");
        ObjectNode out = Json.MAPPER.createObjectNode();
        if (request.has("text")) {
            if (!request.get("text").isTextual()) throw new IllegalArgumentException("\"text\" must be a string");
            boolean special = request.path("add_special_tokens").asBoolean(false);
            out.set("ids", ids(tokenizer.encode(request.get("text").asText(), special)));
            return out;
        }
        JsonNode messages = request.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new IllegalArgumentException("expected \"text\" (a string) or \"messages\" (an array of {role, content})");
        }
        JsonNode tools = request.get("tools");
        if (tools != null && !tools.isNull() && !tools.isArray()) throw new IllegalArgumentException("\"tools\" must be an array");
        Map<String, Object> kwargs = new LinkedHashMap<>();
        request.fields().forEachRemaining(e -> {
            if (!MESSAGE_KEYS.contains(e.getKey())) kwargs.put(e.getKey(), e.getValue());
        });
        String text = template().render(messages, tools, request.path("add_generation_prompt").asBoolean(false), kwargs);
        out.put("text", text);
        out.set("ids", ids(tokenizer.encode(text)));
        return out;
    }

    private JinjaChatTemplate template() throws IOException {
        if (template == null) template = JinjaChatTemplate.load(model);
        return template;
    }

    private static ArrayNode ids(int[] ids) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (int id : ids) a.add(id);
        return a;
    }
}
