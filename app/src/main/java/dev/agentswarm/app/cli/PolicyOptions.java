package dev.agentswarm.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import dev.agentswarm.policy.openai.OpenAiSettings;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which policy a command talks to: the embedded model, an OpenAI-compatible server or a scripted policy file. */
public final class PolicyOptions {

    @Option(names = "--policy", paramLabel = "KIND",
            description = "embedded: the in-process DJL model (agentswarm.policy.embedded; see --weights, --tokenizer, --preset);"
                    + " oracle (swarm eval only): the suite's own solver.")
    String kind;

    @Mixin
    WeightsOptions weights;

    @Option(names = "--preset", paramLabel = "NAME", description = "Embedded policy: model preset tiny, small or base.")
    String preset;

    /** True when the embedded model serves: it needs the node's actor system, see {@link #embeddedConfig}. */
    public boolean embedded() {
        if (kind == null && weights.model != null && endpoint == null && script == null) return true; // --model DIR alone
        if (kind == null || oracle()) return false;
        if (!kind.equals("embedded")) throw new IllegalArgumentException("unknown --policy " + kind + " (known: embedded, oracle)");
        if (script != null || endpoint != null) {
            throw new IllegalArgumentException("--policy embedded cannot be combined with --endpoint or --script");
        }
        return true;
    }

    /** True for {@code --policy oracle}: the suite's solver, which only {@code swarm eval} can offer. */
    public boolean oracle() {
        return "oracle".equals(kind);
    }

    /** The configuration with the embedded-policy options applied. */
    public Config embeddedConfig(Config config) {
        Config c = weights.apply(config);
        if (preset != null) {
            if (weights.model != null) throw new IllegalArgumentException("--preset names one of the project's own models; --model is a folder");
            c = c.withValue("agentswarm.policy.embedded.model.preset", ConfigValueFactory.fromAnyRef(preset));
        }
        return c;
    }

    @Option(names = "--endpoint", paramLabel = "URL",
            description = "Base URL of an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp), e.g. http://127.0.0.1:8000/v1")
    String endpoint;

    @Option(names = "--script", paramLabel = "FILE",
            description = {"Scripted policy: a JSON file {\"replies\": [...]} or a text file whose replies are separated by lines '---'. Reply n answers turn n.",
                    "For a swarm, {\"agents\": {\"root\": [...], \"root/a\": [...], \"*\": [...]}} gives each agent its replies (\"*\": any other)."})
    Path script;

    @Option(names = "--latency-ms", defaultValue = "0",
            description = "With --script: each reply waits this long, holding no thread, as a remote model would (default ${DEFAULT-VALUE}).")
    long latencyMs;

    public Policy create(Config config) {
        if (oracle()) throw new IllegalArgumentException("--policy oracle needs a suite: it is offered by swarm eval only");
        if (script != null && endpoint != null) {
            throw new IllegalArgumentException("give either --endpoint or --script, not both");
        }
        if (latencyMs < 0) throw new IllegalArgumentException("--latency-ms must be >= 0");
        if (latencyMs > 0 && script == null) throw new IllegalArgumentException("--latency-ms applies to a --script policy");
        if (script != null) {
            Policy p = scriptedPolicy(script);
            return latencyMs > 0 && p instanceof ScriptedPolicy s ? s.withLatency(java.time.Duration.ofMillis(latencyMs)) : p;
        }
        if (endpoint != null) {
            String model = weights.model;
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("--endpoint needs --model NAME (the model the server serves)");
            }
            Config withEndpoint = config
                    .withValue("agentswarm.policy.openai.base-url", ConfigValueFactory.fromAnyRef(endpoint))
                    .withValue("agentswarm.policy.openai.model", ConfigValueFactory.fromAnyRef(model));
            return new OpenAiCompatiblePolicy(OpenAiSettings.fromConfig(withEndpoint).withApiKeyFromEnvironment());
        }
        throw new IllegalArgumentException("no policy: give --policy embedded, --endpoint URL --model NAME, or --script FILE");
    }

    /** The replies of a script file, read once: one list for every episode, or one per swarm agent. */
    static Policy scriptedPolicy(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read script " + file + ": " + e.getMessage());
        }
        if (!file.toString().endsWith(".json")) return ScriptedPolicy.replies(textReplies(file, text).toArray(String[]::new));
        JsonNode json;
        try {
            json = Json.parse(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("script " + file + " is not JSON: " + e.getMessage());
        }
        if (json.has("agents")) return byAgent(file, agentScripts(file, json.get("agents")));
        return ScriptedPolicy.replies(strings(file, "\"replies\"", json.get("replies")).toArray(String[]::new));
    }

    private static Policy byAgent(Path file, Map<String, List<String>> byAgent) {
        return ScriptedPolicy.texts(req -> {
            String agent = Orchestrator.agentOf(req.episodeId());
            List<String> replies = byAgent.getOrDefault(agent, byAgent.get("*"));
            if (replies == null) throw new PolicyException("script " + file + " has no replies for agent " + agent + " (nor \"*\")", false);
            if (req.turn() > replies.size()) {
                throw new PolicyException("script exhausted: agent " + agent + " asked for turn " + req.turn() + " but has "
                        + replies.size() + " replies", false);
            }
            return replies.get(req.turn() - 1);
        });
    }

    /** {@code {"agents": {name: [replies]}}}. */
    private static Map<String, List<String>> agentScripts(Path file, JsonNode agents) {
        if (!agents.isObject() || agents.isEmpty()) {
            throw new IllegalArgumentException("script " + file + ": \"agents\" must map agent names to lists of replies");
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        agents.fields().forEachRemaining(e -> out.put(e.getKey(), strings(file, "agent " + e.getKey(), e.getValue())));
        return out;
    }

    /** A non-empty list of strings, or a clear error naming the file and what holds the list. */
    private static List<String> strings(Path file, String what, JsonNode node) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException("script " + file + ": " + what + " needs a non-empty list of replies,"
                    + " as {\"replies\": [\"...\", ...]} or {\"agents\": {\"root\": [\"...\"], ...}}");
        }
        List<String> replies = new ArrayList<>();
        for (JsonNode r : node) {
            if (!r.isTextual()) throw new IllegalArgumentException("script " + file + ": every reply must be a string, got " + r);
            replies.add(r.textValue());
        }
        return replies;
    }

    /** Replies separated by lines {@code ---}. */
    private static List<String> textReplies(Path file, String text) {
        List<String> replies = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.strip().equals("---")) {
                replies.add(cur.toString().strip());
                cur.setLength(0);
            } else {
                cur.append(line).append('\n');
            }
        }
        if (!cur.toString().isBlank()) replies.add(cur.toString().strip());
        if (replies.isEmpty()) throw new IllegalArgumentException("script " + file + " has no replies");
        return replies;
    }
}
