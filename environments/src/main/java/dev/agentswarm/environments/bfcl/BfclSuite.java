package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
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
 * The Berkeley Function-Calling Leaderboard (BFCL v4), single-turn categories: each question offers
 * its own functions as the episode's tools; the model's calls in its one turn are its answer, scored
 * with BFCL's AST checker ({@link BfclChecker}) against the possible answers (the episode ends with them as
 * its final answer; they are not run), or, for irrelevance, on
 * whether it called nothing. Components: {@code pass}, and for a failure {@code fail:<BFCL error type>}
 * so the report counts the reasons as BFCL names them. BFCL is a test set: it has no train split.
 */
public final class BfclSuite implements Suite {

    public static final String NAME = "bfcl";

    private final Path dataDir;
    private final List<BfclCategory> categories;

    public BfclSuite(Path dataDir, List<BfclCategory> categories) {
        if (categories.isEmpty()) throw new IllegalArgumentException("bfcl: categories is empty; name at least one of "
                + java.util.Arrays.stream(BfclCategory.values()).map(BfclCategory::label).toList());
        this.dataDir = dataDir;
        this.categories = List.copyOf(categories);
    }

    /** From an {@code agentswarm.environments.bfcl} block. */
    public static BfclSuite fromConfig(Config c) {
        return new BfclSuite(Path.of(c.getString("data-dir")), c.getStringList("categories").stream().map(BfclCategory::parse).toList());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "BFCL v4 function calling, scored with its AST checker: " + categories.stream().map(BfclCategory::label).toList();
    }

    /**
     * The questions of every configured category, interleaved category by category so that a limit
     * takes some of each; in file order within a category.
     */
    @Override
    public List<Task> tasks(Split split, int limit) {
        if (split == Split.TRAIN) {
            throw new IllegalArgumentException("bfcl is a test set and has no train split: evaluate it on heldout");
        }
        List<List<Task>> each = new ArrayList<>();
        for (BfclCategory c : categories) each.add(BfclTasks.load(dataDir, c, NAME, split.label()));
        List<Task> out = new ArrayList<>();
        for (int i = 0; out.size() < limit; i++) {
            boolean any = false;
            for (List<Task> tasks : each) {
                if (i < tasks.size() && out.size() < limit) {
                    out.add(tasks.get(i));
                    any = true;
                }
            }
            if (!any) break;
        }
        return out;
    }

    /** One turn, no tools from the node (each question brings its functions) and no prompt of the suite's own. */
    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withTools(List.of()).withSystemPrompt("").withMaxTurns(1);
    }

    @Override
    public List<Tool> tools() {
        return List.of();
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        BfclCategory category = category(task);
        List<JsonNode> docs = functions(task);
        ArrayNode answers = category.relevanceOnly() ? null : groundTruth(task);
        List<Tool> tools = BfclFunctions.tools(docs, category);
        String system = task.metadata().get(BfclTasks.SYSTEM);
        return new TaskEnvironment() {
            @Override
            public List<Tool> tools() {
                return tools;
            }

            @Override
            public String systemPrompt() {
                return system;
            }

            @Override
            public boolean callsAreTheAnswer() {
                return true;
            }

            @Override
            public RewardBreakdown score(Trajectory t) {
                return BfclSuite.score(category, docs, answers, t);
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public String categoryKey() {
        return BfclTasks.CATEGORY;
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new BfclOracle());
    }

    @Override
    public Map<String, Double> summary(Map<String, Double> passByCategory, Map<String, Integer> countByCategory) {
        return BfclScores.summary(passByCategory, countByCategory);
    }

    /** The verdict on a finished episode as reward components. */
    static RewardBreakdown score(BfclCategory category, List<JsonNode> docs, ArrayNode answers, Trajectory t) {
        BfclChecker.Verdict v = verdict(category, docs, answers, t);
        Map<String, Double> c = new LinkedHashMap<>();
        c.put("pass", v.valid() ? 1.0 : 0.0);
        if (!v.valid()) c.put("fail:" + v.errorType(), 1.0);
        return new RewardBreakdown(c, v.valid() ? 1.0 : 0.0);
    }

    /** What BFCL would say of the model's first turn, read as its function-calling handler reads an answer. */
    static BfclChecker.Verdict verdict(BfclCategory category, List<JsonNode> docs, ArrayNode answers, Trajectory t) {
        Decoded d = decode(t);
        if (category.relevanceOnly()) {
            boolean called = d.calls != null && !d.calls.isEmpty();
            if (called == category.callWanted()) return BfclChecker.Verdict.VALID;
            return category.callWanted()
                    ? BfclChecker.Verdict.invalid("relevance_error:decoder_failed", "Invalid syntax. Failed to decode AST when it should have. "
                            + (d.failure == null ? "" : d.failure))
                    : BfclChecker.Verdict.invalid("irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not.");
        }
        if (d.failure != null) return BfclChecker.Verdict.invalid(d.failureType, d.failure);
        return BfclChecker.check(docs, d.calls, answers, category.language(), category.label());
    }

    private record Decoded(List<BfclChecker.Call> calls, String failureType, String failure) {}

    private static Decoded decode(Trajectory t) {
        List<Turn> turns = t.assistantTurns();
        if (turns.isEmpty()) {
            return new Decoded(null, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. The model gave no answer ("
                    + t.stopReason() + (t.error() == null ? "" : ": " + t.error()) + ").");
        }
        Turn turn = turns.get(0);
        if (!turn.formatErrors().isEmpty()) {
            return new Decoded(null, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. " + String.join("; ", turn.formatErrors()));
        }
        if (turn.toolCalls().isEmpty()) {
            // BFCL's function-calling handlers keep a reply without calls as its text, which does not decode as calls.
            if (turn.text() != null && !turn.text().isBlank()) {
                return new Decoded(null, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. The answer is text, not a call.");
            }
            return new Decoded(List.of(), null, null);
        }
        List<BfclChecker.Call> calls = new ArrayList<>();
        for (ToolCall call : turn.toolCalls()) {
            if (call.arguments() == null || !call.arguments().isObject()) {
                return new Decoded(null, "ast_decoder:decoder_wrong_output_format",
                        "Did not output in the specified format: the arguments of " + call.name() + " are not an object.");
            }
            calls.add(new BfclChecker.Call(call.name(), call.arguments()));
        }
        return new Decoded(calls, null, null);
    }

    static BfclCategory category(Task task) {
        String label = task.metadata().get(BfclTasks.CATEGORY);
        if (label == null) throw new IllegalArgumentException("BFCL task " + task.id() + " has no category");
        return BfclCategory.parse(label);
    }

    static List<JsonNode> functions(Task task) {
        String text = task.metadata().get(BfclTasks.FUNCTIONS);
        if (text == null) throw new IllegalArgumentException("BFCL task " + task.id() + " has no functions");
        try {
            JsonNode docs = Json.MAPPER.readTree(text);
            if (!docs.isArray() || docs.isEmpty()) throw new IllegalArgumentException("BFCL task " + task.id() + " offers no functions");
            List<JsonNode> out = new ArrayList<>();
            docs.forEach(out::add);
            return out;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("BFCL task " + task.id() + ": its functions are not JSON: " + e.getOriginalMessage());
        }
    }

    static ArrayNode groundTruth(Task task) {
        try {
            JsonNode gt = Json.MAPPER.readTree(task.answer() == null ? "" : task.answer());
            if (gt == null || !gt.isArray() || gt.isEmpty()) {
                throw new IllegalArgumentException("BFCL task " + task.id() + " has no possible answer");
            }
            for (JsonNode call : gt) {
                if (!call.isObject() || call.size() != 1 || !call.elements().next().isObject()) {
                    throw new IllegalArgumentException("BFCL task " + task.id() + ": a possible answer is not {function: {parameter: [values]}}");
                }
            }
            return (ArrayNode) gt;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("BFCL task " + task.id() + ": its possible answer is not JSON: " + e.getOriginalMessage());
        }
    }
}
