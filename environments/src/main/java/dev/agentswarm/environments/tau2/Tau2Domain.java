package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A τ²-bench domain read from its data folder ({@code db.json}, {@code user_db.json} where the user has
 * tools, {@code tasks.json}, {@code split_tasks.json}, the policy): fresh environments for episodes and
 * for grading, and its tasks by split. Retail and mock are here; telecom's tools are not yet.
 */
public final class Tau2Domain {

    public enum Kind { RETAIL, MOCK, TELECOM }

    private final Kind kind;
    private final Path dir;
    private final ObjectNode db;
    private final ObjectNode userDb;
    private final JsonNode tasks;
    private final JsonNode splits;
    private final String policy;

    private Tau2Domain(Kind kind, Path dir) {
        this.kind = kind;
        this.dir = dir;
        if (kind == Kind.TELECOM) {
            this.db = (ObjectNode) toml(dir.resolve("db.toml"));
            this.userDb = (ObjectNode) toml(dir.resolve("user_db.toml"));
            JsonNode file = read(dir.resolve("tasks_small.json"));
            this.tasks = file.isObject() ? file.path("tasks") : file;
            // The snapshot has the "small" set alone (its split file is not there): it is every split here.
            com.fasterxml.jackson.databind.node.ObjectNode split = Json.MAPPER.createObjectNode();
            com.fasterxml.jackson.databind.node.ArrayNode ids = split.putArray("small");
            tasks.forEach(t -> ids.add(t.path("id").asText()));
            this.splits = split;
            this.policy = "<main_policy>\n" + text(dir.resolve("main_policy.md")) + "\n</main_policy>\n<tech_support_policy>\n"
                    + manual() + "\n</tech_support_policy>";
        } else {
            this.db = (ObjectNode) read(dir.resolve("db.json"));
            this.userDb = kind == Kind.MOCK ? (ObjectNode) read(dir.resolve("user_db.json")) : null;
            this.tasks = read(dir.resolve("tasks.json"));
            this.splits = read(dir.resolve("split_tasks.json"));
            this.policy = text(dir.resolve("policy.md"));
        }
    }

    public static Tau2Domain load(Kind kind, Path dir) {
        return new Tau2Domain(kind, dir);
    }

    public Kind kind() {
        return kind;
    }

    /** The agent's policy, which τ² gives its agent as the system prompt's policy. */
    public String policy() {
        return policy;
    }

    /** An environment with fresh copies of the domain's databases. */
    public Tau2Environment fresh() {
        return switch (kind) {
            case RETAIL -> new Tau2Environment(new RetailTools(db.deepCopy()), null);
            case MOCK -> new Tau2Environment(new MockTools(db.deepCopy()), new MockUserTools(userDb.deepCopy()));
            case TELECOM -> {
                Tau2Environment env = new Tau2Environment(new TelecomTools(db.deepCopy()), new TelecomUserTools(userDb.deepCopy()));
                env.sync();
                yield env;
            }
        };
    }

    /**
     * Where each task's gold actions leave the databases, as changes from the pristine ones, computed once per
     * task: keyed by what decides them (the task's initial state and gold actions, compared by content), so a
     * task that differs from another of its id (another node's copy of the data) is not graded by its gold.
     */
    private final java.util.concurrent.ConcurrentHashMap<List<JsonNode>, Map<String, JsonNode>> goldChanges = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether {@code predicted} holds the databases {@code task}'s gold actions leave: its changes from the
     * pristine databases against the gold's, which are the same for every episode of the task (so they are
     * not replayed on a fresh copy of the databases each time).
     */
    boolean matchesGold(JsonNode task, Tau2Environment predicted) {
        List<JsonNode> key = List.of(task.path("initial_state"), task.path("evaluation_criteria").path("actions"));
        Map<String, JsonNode> gold = goldChanges.computeIfAbsent(key,
                k -> Map.copyOf(Tau2Evaluator.goldState(task, this::fresh).changesFrom(db, userDb)));
        return gold.equals(predicted.changesFrom(db, userDb));
    }

    /** The tasks of a split ({@code base} is all of them), in the order of tasks.json. */
    public List<JsonNode> tasks(String split) {
        JsonNode ids = splits.path(split);
        if (!ids.isArray()) throw new IllegalArgumentException("τ² " + kind.name().toLowerCase() + " has no split \"" + split + "\"; it has "
                + iterable(splits.fieldNames()));
        Set<String> wanted = new HashSet<>();
        ids.forEach(i -> wanted.add(i.asText()));
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode t : tasks) if (wanted.contains(t.path("id").asText())) out.add(t);
        return out;
    }

    public JsonNode task(String id) {
        for (JsonNode t : tasks) if (t.path("id").asText().equals(id)) return t;
        throw new IllegalArgumentException("τ² " + kind.name().toLowerCase() + " has no task " + id);
    }

    private static List<String> iterable(java.util.Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    private static JsonNode read(Path file) {
        try {
            return Json.MAPPER.readTree(file.toFile());
        } catch (NoSuchFileException | java.io.FileNotFoundException e) {
            throw new IllegalArgumentException("τ² file " + file + " not found (the domains are in ../shared/data/tau2)");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read τ² file " + file + ": " + e.getMessage());
        }
    }

    private static JsonNode toml(Path file) {
        try {
            return new com.fasterxml.jackson.dataformat.toml.TomlMapper().readTree(file.toFile());
        } catch (java.io.FileNotFoundException e) {
            throw new IllegalArgumentException("τ² file " + file + " not found (the domains are in ../shared/data/tau2)");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read τ² file " + file + ": " + e.getMessage());
        }
    }

    /** The telecom agent's tech-support manual, which the data snapshot lacks: it ships with the build. */
    private static String manual() {
        try (var in = Tau2Domain.class.getResourceAsStream("/tau2/telecom/tech_support_manual.md")) {
            if (in == null) throw new IllegalStateException("tau2/telecom/tech_support_manual.md is missing from the build");
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the telecom manual: " + e.getMessage(), e);
        }
    }

    private static String text(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read τ² policy " + file + ": " + e.getMessage());
        }
    }
}
