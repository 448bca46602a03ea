package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.ModelClients;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A τ²-bench domain as a suite ({@code tau2-retail}, {@code tau2-mock}): each episode is a customer-service
 * conversation; the agent, under the domain's policy, greets, hears the simulated user, calls the
 * domain's tools on its own copy of the databases and messages the user until the user ends the
 * conversation; τ²'s reward grades it. Train and held-out are τ²'s own splits ({@code train},
 * {@code test}; mock has one set, {@code base}, for both). The user is scripted unless a model plays it
 * ({@link #withModels}), as in τ²; natural-language assertions are graded when a judge model is given.
 */
public final class Tau2Suite implements Suite {

    public static final String RETAIL = "tau2-retail";
    public static final String MOCK = "tau2-mock";
    public static final String TELECOM = "tau2-telecom";
    static final String TASK = "tau2_task";

    /** What τ²'s agent is told before its domain's policy (our words for its instruction). */
    private static final String INSTRUCTION = """
            You are a customer service agent that helps the user according to the <policy> provided below.
            In each turn you can either:
            - Send a message to the user.
            - Make a tool call.
            You cannot do both at the same time.

            Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.""";

    /** τ² runs its user simulator and its judge greedily. */
    static final SamplingParams GREEDY = new SamplingParams(0.0, 1.0, 0, 1024, List.of(), null);

    private final String name;
    private final Tau2Domain domain;
    private final int maxTurns;
    /** The model that plays the user, or null for the scripted user. */
    private final Policy user;
    /** The model that grades natural-language assertions, or null (they are then reported as needing a judge). */
    private final Policy judge;

    /** The episode's reward is seed 003's shaped one (τ²'s reward + 0.25 × the weighted share of checks that held). */
    private final boolean turnCredit;

    public Tau2Suite(String name, Tau2Domain domain, int maxTurns) {
        this(name, domain, maxTurns, false, null, null);
    }

    public Tau2Suite(String name, Tau2Domain domain, int maxTurns, boolean turnCredit) {
        this(name, domain, maxTurns, turnCredit, null, null);
    }

    private Tau2Suite(String name, Tau2Domain domain, int maxTurns, boolean turnCredit, Policy user, Policy judge) {
        if (maxTurns < 1) throw new IllegalArgumentException(name + ": max-turns must be >= 1, got " + maxTurns);
        this.turnCredit = turnCredit;
        this.name = name;
        this.domain = domain;
        this.maxTurns = maxTurns;
        this.user = user;
        this.judge = judge;
    }

    /** The same suite with the user played by {@code user} and assertions graded by {@code judge}; a null keeps the suite's own. */
    public Tau2Suite withModels(Policy user, Policy judge) {
        return new Tau2Suite(name, domain, maxTurns, turnCredit, user != null ? user : this.user, judge != null ? judge : this.judge);
    }

    public static Tau2Suite retail(Config c, ModelClients models) {
        return fromConfig(RETAIL, Tau2Domain.Kind.RETAIL, c, models);
    }

    public static Tau2Suite mock(Config c, ModelClients models) {
        return fromConfig(MOCK, Tau2Domain.Kind.MOCK, c, models);
    }

    public static Tau2Suite telecom(Config c, ModelClients models) {
        return fromConfig(TELECOM, Tau2Domain.Kind.TELECOM, c, models);
    }

    /**
     * A suite from its block; its {@code user} and {@code judge} blocks, when they name an endpoint and a
     * model, are reached through {@code models} (so every node of a cluster plays the user the same way).
     */
    private static Tau2Suite fromConfig(String name, Tau2Domain.Kind kind, Config c, ModelClients models) {
        Tau2Suite suite = new Tau2Suite(name, Tau2Domain.load(kind, Path.of(c.getString("data-dir"))), c.getInt("max-turns"), turnCredit(c));
        Policy user = configuredModel(c, "user", models);
        Policy judge = configuredModel(c, "judge", models);
        return user == null && judge == null ? suite : suite.withModels(user, judge);
    }

    /** The model a block names ({@code endpoint} and {@code model} together), or null when it names none. */
    static Policy configuredModel(Config c, String key, ModelClients models) {
        if (!c.hasPath(key)) return null;
        if (c.getValue(key).valueType() != com.typesafe.config.ConfigValueType.OBJECT) {
            throw new IllegalArgumentException(key + " must be a block { endpoint = URL, model = NAME }, got " + c.getValue(key).render());
        }
        String endpoint = c.hasPath(key + ".endpoint") ? c.getString(key + ".endpoint").strip() : "";
        String model = c.hasPath(key + ".model") ? c.getString(key + ".model").strip() : "";
        if (endpoint.isEmpty() && model.isEmpty()) return null;
        if (endpoint.isEmpty() || model.isEmpty()) {
            throw new IllegalArgumentException(key + ".endpoint and " + key + ".model go together (got endpoint \"" + endpoint
                    + "\", model \"" + model + "\")");
        }
        java.net.URI uri;
        try {
            uri = java.net.URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ".endpoint is not a URL: " + endpoint);
        }
        if (uri.getScheme() == null || !uri.getScheme().startsWith("http")) throw new IllegalArgumentException(key + ".endpoint is not an http(s) URL: " + endpoint);
        return models.connect(uri, model);
    }

    private static boolean turnCredit(Config c) {
        String reward = c.getString("reward");
        return switch (reward) {
            case "tau2" -> false;
            case "turn-credit" -> true;
            default -> throw new IllegalArgumentException("reward is \"" + reward + "\"; use tau2 (τ²'s own) or turn-credit (seed 003's shaping)");
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "τ²-bench " + domain.kind().name().toLowerCase() + ": customer-service conversations with a simulated user, graded by τ²'s reward";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        String tau2Split = switch (domain.kind()) {
            case MOCK -> "base";
            case TELECOM -> "small"; // the only set in the data snapshot
            case RETAIL -> split == Split.TRAIN ? "train" : "test";
        };
        List<Task> out = new ArrayList<>();
        for (JsonNode t : domain.tasks(tau2Split)) {
            if (out.size() >= limit) break;
            Map<String, String> meta = new LinkedHashMap<>();
            meta.put(Task.SUITE, name);
            meta.put(Task.SPLIT, split.label());
            meta.put(TASK, Json.write(t));
            out.add(new Task(name + "-" + t.path("id").asText(), scenario(t), null, meta));
        }
        return out;
    }

    /** The user's brief as τ² renders it for its user simulator (the agent never sees it). */
    static String scenario(JsonNode task) {
        JsonNode s = task.path("user_scenario");
        StringBuilder sb = new StringBuilder();
        if (s.hasNonNull("persona")) sb.append("Persona:\n").append(indent(s.get("persona").asText())).append('\n');
        sb.append("Instructions:\n");
        JsonNode i = s.path("instructions");
        if (i.isTextual()) {
            sb.append(indent(i.asText()));
        } else {
            StringBuilder in = new StringBuilder();
            in.append("Domain: ").append(i.path("domain").asText()).append('\n');
            in.append("Reason for call:\n").append(indent(i.path("reason_for_call").asText())).append('\n');
            if (i.hasNonNull("known_info")) in.append("Known info:\n").append(indent(i.get("known_info").asText())).append('\n');
            if (i.hasNonNull("unknown_info")) in.append("Unknown info:\n").append(indent(i.get("unknown_info").asText())).append('\n');
            in.append("Task instructions:\n").append(indent(i.path("task_instructions").asText()));
            sb.append(indent(in.toString()));
        }
        return sb.toString();
    }

    /** Python's textwrap.indent with a tab: every line that is not only whitespace. */
    private static String indent(String text) {
        StringBuilder sb = new StringBuilder();
        for (String line : text.split("(?<=\n)", -1)) sb.append(line.isBlank() ? line : "\t" + line);
        return sb.toString();
    }

    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        String system = "<instructions>\n" + INSTRUCTION + "\n</instructions>\n<policy>\n" + domain.policy() + "\n</policy>";
        return defaults.withTools(List.of()).withSystemPrompt(system).withMaxTurns(maxTurns);
    }

    @Override
    public List<Tool> tools() {
        return List.of();
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        String json = task.metadata().get(TASK);
        if (json == null) throw new IllegalArgumentException("τ² task " + task.id() + " carries no task");
        try {
            JsonNode t = Json.MAPPER.readTree(json);
            return new Tau2Episode(domain, t, episodeId, user == null ? null : (episode -> new ModelUser(user, task.prompt(), episode,
                    episodeId, GREEDY)), judge == null ? null : new Tau2Judge(judge, GREEDY), turnCredit);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("τ² task " + task.id() + " is not JSON: " + e.getOriginalMessage());
        }
    }

    @Override
    public List<String> reportColumns() {
        return List.of("pass", "db", "action", "communicate", "env_assertion");
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new Tau2Oracle());
    }
}
