package dev.agentswarm.policy.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.chat.jinja.JinjaTemplate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's own chat template, rendered exactly as Hugging Face transformers'
 * {@code apply_chat_template(messages, tools=…, add_generation_prompt=…, tokenize=False, **kwargs)}:
 * the template sees {@code messages}, {@code tools} (None when absent), {@code documents} (None),
 * {@code add_generation_prompt}, the tokenizer config's special tokens ({@code bos_token},
 * {@code eos_token}, {@code pad_token}, {@code unk_token}…) and any extra keyword arguments, such as
 * Qwen3's {@code enable_thinking} or Llama-3's {@code date_string}.
 *
 * <p><b>Multi-turn episodes must stay token-exact.</b> A trajectory's ids are what the policy saw
 * and produced. Templates are not append-only: Qwen3's drops the {@code <think>} blocks of assistant
 * turns before the last user message when the conversation is rendered again, so re-rendering an
 * episode from scratch changes tokens the policy already conditioned on. An episode therefore
 * extends its previous prompt ids + generated ids with the rendered suffix of the new messages
 * only; {@link EpisodePrompts} does that.
 *
 * <p>The rendered text is encoded with special tokens matched, as transformers does, so message text
 * that spells one (a tool result containing {@code <|im_end|>}) becomes that control token: strip or
 * escape special-token strings from untrusted tool output before it becomes a message.
 */
public final class JinjaChatTemplate {

    private static final List<String> SPECIAL_TOKENS =
            List.of("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token");

    private final JinjaTemplate defaultTemplate;
    private final JinjaTemplate toolTemplate;
    private final Map<String, Object> specialTokens;

    private JinjaChatTemplate(JinjaTemplate defaultTemplate, JinjaTemplate toolTemplate, Map<String, Object> specialTokens) {
        this.defaultTemplate = defaultTemplate;
        this.toolTemplate = toolTemplate;
        this.specialTokens = specialTokens;
    }

    /**
     * The template of a model folder: {@code chat_template.jinja} if present, else
     * {@code tokenizer_config.json}'s {@code chat_template} (a string, or a list of named templates
     * of which {@code default} is used, and {@code tool_use} when tools are given).
     */
    public static JinjaChatTemplate load(Path modelDir) throws IOException {
        Path configFile = modelDir.resolve("tokenizer_config.json");
        JsonNode config = Files.isRegularFile(configFile) ? Json.MAPPER.readTree(configFile.toFile()) : NullNode.instance;
        Path jinja = modelDir.resolve("chat_template.jinja");
        if (Files.isRegularFile(jinja)) {
            return of(Files.readString(jinja, StandardCharsets.UTF_8), null, config);
        }
        JsonNode t = config.path("chat_template");
        if (t.isTextual()) return of(t.asText(), null, config);
        if (t.isArray()) {
            Map<String, String> named = new HashMap<>();
            for (JsonNode e : t) named.put(e.path("name").asText(), e.path("template").asText());
            if (!named.containsKey("default")) {
                throw new IOException(configFile + ": chat_template lists " + named.keySet() + " but no 'default' template");
            }
            return of(named.get("default"), named.get("tool_use"), config);
        }
        throw new IOException("no chat template in " + modelDir + " (expected chat_template.jinja or a chat_template in tokenizer_config.json)");
    }

    /** A template from source; {@code toolTemplate} (nullable) is used when tools are given; special tokens come from {@code tokenizerConfig}. */
    public static JinjaChatTemplate of(String template, String toolTemplate, JsonNode tokenizerConfig) {
        Map<String, Object> special = new LinkedHashMap<>();
        for (String name : SPECIAL_TOKENS) {
            String v = tokenText(tokenizerConfig.get(name));
            if (v != null) special.put(name, v);
        }
        JsonNode extra = tokenizerConfig.path("additional_special_tokens");
        if (extra.isArray() && !extra.isEmpty()) {
            special.put("additional_special_tokens", extra.findValuesAsText("content").isEmpty()
                    ? Json.MAPPER.convertValue(extra, List.class)
                    : extra.findValuesAsText("content"));
        }
        return new JinjaChatTemplate(JinjaTemplate.compile(template), toolTemplate == null ? null : JinjaTemplate.compile(toolTemplate),
                Map.copyOf(special));
    }

    private static String tokenText(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (n.isTextual()) return n.asText();
        return n.has("content") ? n.get("content").asText() : null;
    }

    /**
     * The conversation as the model sees it. {@code messages} is a JSON array of Hugging Face message
     * dicts ({@link HfMessages} builds them from ours); {@code toolsOrNull} a JSON array of
     * {@code {"type":"function","function":{…}}} or null; {@code extraKwargs} more template
     * variables ({@code enable_thinking}, {@code date_string}…), which win over the defaults.
     */
    public String render(JsonNode messages, JsonNode toolsOrNull, boolean addGenerationPrompt, Map<String, ?> extraKwargs) {
        Map<String, Object> vars = new LinkedHashMap<>(specialTokens);
        vars.put("messages", messages);
        boolean hasTools = toolsOrNull != null && !toolsOrNull.isNull();
        vars.put("tools", hasTools ? toolsOrNull : null);
        vars.put("documents", null);
        vars.put("add_generation_prompt", addGenerationPrompt);
        if (extraKwargs != null) vars.putAll(extraKwargs);
        JinjaTemplate t = hasTools && toolTemplate != null ? toolTemplate : defaultTemplate;
        return t.render(vars);
    }

    /** The same template with {@code strftime_now} pinned to a clock (for deterministic dates in tests). */
    public JinjaChatTemplate withClock(java.util.function.Supplier<java.time.LocalDateTime> clock) {
        return new JinjaChatTemplate(defaultTemplate.withClock(clock), toolTemplate == null ? null : toolTemplate.withClock(clock),
                specialTokens);
    }
}
