package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.reward.ShapingRewards;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.EpisodeStates;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One episode of a SQL task: its database (built from the tables the task carries, when the
 * episode opens; closed when it closes), its committed answer, and its scoring.
 *
 * <p>The task: metadata {@code tables} ({@link SqlTable} JSON) and {@code type} (a DBBench type);
 * answer = the gold, a JSON list of strings for a question, the table hash (bare, or AgentBench's
 * {@code [('…',)]}) for a modification.
 *
 * <p>The answer scored is the committed one ({@code commit_final_answer}), else, when the episode
 * ended with a final message and never committed, that message (read as AgentBench reads a
 * string: a list-looking text is evaluated as a list). A modification is scored by the hash of the
 * table as it is when the episode is scored (no statement runs after a commit), provided the
 * episode committed or answered. Components: {@code correct} and {@code pass} (1/0, as AgentBench),
 * {@code committed} (the answer came through the tool), {@code format} (share of well-formed
 * turns, 0 without an answer) and {@code tool_call} (a tool was called).
 */
public final class SqlEpisode implements TaskEnvironment {

    /** The components every SQL episode's breakdown holds. */
    public static final Set<String> COMPONENTS = Set.of("correct", "pass", "committed", "format", "tool_call");

    private final String episodeId;
    private final String type;
    private final Object gold;
    private final List<SqlTable> tables;
    private final SqliteDatabase database;
    private final EpisodeStates<SqlEpisode> states;
    private final RewardWeights weights;
    private final AtomicReference<List<String>> committed = new AtomicReference<>();

    private SqlEpisode(String episodeId, String type, Object gold, List<SqlTable> tables, SqliteDatabase database,
                       EpisodeStates<SqlEpisode> states, RewardWeights weights) {
        this.episodeId = episodeId;
        this.type = type;
        this.gold = gold;
        this.tables = tables;
        this.database = database;
        this.states = states;
        this.weights = weights;
    }

    /**
     * Builds the task's database and registers the episode with its suite's tools. Throws
     * {@link IllegalArgumentException} naming the task and the field when the task is malformed.
     */
    static SqlEpisode open(Task task, String episodeId, EpisodeStates<SqlEpisode> states, RewardWeights weights, String suite) {
        String where = suite + " task " + task.id();
        String type = task.metadata().get(SqlTasks.TYPE);
        if (type == null || type.isBlank()) throw new IllegalArgumentException(where + " has no \"" + SqlTasks.TYPE + "\" metadata");
        if (task.answer() == null) throw new IllegalArgumentException(where + " has no answer to score against");
        List<SqlTable> tables = SqlTable.fromJson(task.metadata().get(SqlTable.METADATA_KEY), where);
        SqliteDatabase db;
        try {
            db = SqliteDatabase.open(tables);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        SqlEpisode episode = new SqlEpisode(episodeId, type, goldOf(task.answer()), tables, db, states, weights);
        try {
            states.put(episodeId, episode);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return episode;
    }

    /** A JSON list of strings is a list of values; anything else is one string (a hash, AgentBench's tuple text). */
    static Object goldOf(String answer) {
        String s = answer.strip();
        if (s.startsWith("[")) {
            try {
                JsonNode node = Json.parse(s);
                if (node.isArray()) {
                    List<String> values = new ArrayList<>();
                    for (JsonNode v : node) values.add(v.isTextual() ? v.textValue() : v.toString());
                    return values;
                }
            } catch (IOException e) {
                // not JSON: AgentBench's [('…',)] form, read as a string
            }
        }
        return answer;
    }

    SqliteDatabase database() {
        return database;
    }

    /** The committed answers, or null before a commit. */
    List<String> committed() {
        return committed.get();
    }

    /** Records the answer; false when one was already committed (it stays). */
    boolean commit(List<String> answers) {
        return committed.compareAndSet(null, List.copyOf(answers));
    }

    @Override
    public RewardBreakdown score(Trajectory trajectory) {
        EpisodeOutcome o = EpisodeOutcome.of(trajectory);
        List<String> commit = committed.get();
        Object answer = commit != null ? commit : o.answer();
        boolean correct = answer != null && correct(answer);
        Map<String, Double> c = new LinkedHashMap<>();
        c.put("correct", correct ? 1.0 : 0.0);
        c.put("pass", correct ? 1.0 : 0.0);
        c.put("committed", commit != null ? 1.0 : 0.0);
        c.put("format", ShapingRewards.format(o.assistantTurns(), o.formatErrors(), answer != null));
        c.put("tool_call", ShapingRewards.toolCall(o.toolCalls(), o.toolSuccesses(), false));
        return weights.combine(c);
    }

    private boolean correct(Object answer) {
        if (!AnswerMatcher.isModification(type)) return AnswerMatcher.matches(answer, gold, type);
        String hash;
        try {
            hash = database.hash(tables);
        } catch (RuntimeException e) {
            return false; // the agent dropped or reshaped the table
        }
        return AnswerMatcher.matches(hash, gold, type);
    }

    @Override
    public void close() {
        states.remove(episodeId);
        database.close();
    }
}
