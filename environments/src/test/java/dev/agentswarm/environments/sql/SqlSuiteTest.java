package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SqlSuiteTest {

    private static final Config ROOT = ConfigFactory.load();
    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ROOT.getConfig("agentswarm.episode"));
    private final SqlSuite suite = SqlSuite.fromConfig(ROOT.getConfig("agentswarm.environments.sql"));

    private String call(String episode, String tool, String field, Object value, long timeoutMillis) {
        ObjectNode args = Json.object();
        if (value instanceof List<?> l) {
            var a = args.putArray(field);
            l.forEach(v -> a.add((String) v));
        } else {
            args.put(field, (String) value);
        }
        ToolExecutor executor = new ToolExecutor(ToolRegistry.of(suite.tools()), 8000, 30_000);
        ToolResult r = executor.execute(new ToolCall("c", tool, args), new ToolContext(episode, 1, 0, "c", timeoutMillis))
                .toCompletableFuture().join();
        return (r.ok() ? "" : r.status() + ": ") + r.content();
    }

    private String sql(String episode, String query) {
        return call(episode, SqlTools.EXECUTE_SQL, "query", query, 5000);
    }

    /** A trajectory that ended as given, with one tool call made. */
    private static Trajectory ended(Task t, String answer, StopReason reason) {
        return new Trajectory("e", t.id(), t.id(), List.of(), List.of(), answer, reason, null,
                new EpisodeStats(2, 1, 1, 0, 0, 0, 0), null);
    }

    @Test
    void theSameSeedGivesTheSameTasksAndTheSplitsAreDisjoint() {
        List<Task> train = suite.tasks(Split.TRAIN, 300);
        assertEquals(train, suite.tasks(Split.TRAIN, 300));
        assertEquals(train.subList(0, 20), suite.tasks(Split.TRAIN, 20), "a smaller draw is a prefix");
        List<Task> heldout = suite.tasks(Split.HELDOUT, 100);
        Set<String> trainKeys = new HashSet<>();
        for (Task t : train) trainKeys.add(t.metadata().get(SqlTable.METADATA_KEY) + t.prompt());
        Map<String, Integer> types = new HashMap<>();
        for (Task t : heldout) {
            assertFalse(trainKeys.contains(t.metadata().get(SqlTable.METADATA_KEY) + t.prompt()), t.id());
            assertEquals("heldout", t.metadata().get(Task.SPLIT));
            assertEquals("sql", t.suite());
        }
        for (Task t : train) types.merge(t.metadata().get(SqlTasks.TYPE), 1, Integer::sum);
        assertEquals(new HashSet<>(SqlTasks.TYPES), types.keySet(), "every type is drawn: " + types);
        Task first = train.get(0);
        assertTrue(first.prompt().startsWith("Additional table information about the question: The name of this table is "), first.prompt());
        assertTrue(first.prompt().contains("\nQuestion: "), first.prompt());
        // Sizes from the configuration cap each split.
        SqlSuite small = new SqlSuite(7, 5, 3, 10, new dev.agentswarm.core.reward.RewardWeights(Map.of("correct", 1.0)));
        assertEquals(5, small.tasks(Split.TRAIN, 100).size());
        assertEquals(3, small.tasks(Split.HELDOUT, 100).size());
        assertNotEquals(train.get(0), new SqlSuite(8, 5, 3, 10, new dev.agentswarm.core.reward.RewardWeights(Map.of()))
                .tasks(Split.TRAIN, 1).get(0), "another seed, other tasks");
    }

    @Test
    void theOracleSolvesEveryTaskThroughTheRealTools() {
        for (Split split : Split.values()) {
            for (Task t : suite.tasks(split, 50)) {
                Trajectory done = OracleRun.run(suite, t, DEFAULTS, Noise.NONE);
                var c = done.reward().components();
                assertEquals(1.0, c.get("pass"), t.id() + " " + t.metadata().get(SqlTasks.TYPE) + ": " + t.prompt() + " gold " + t.answer());
                assertEquals(1.0, c.get("committed"), t.id());
                assertEquals(1.2, done.reward().total(), 1e-9, "correct + 0.1 format + 0.1 tool call");
                assertEquals(2, done.stats().toolCalls(), "the gold statement and the commit");
            }
        }
        assertEquals(0, suite.openEpisodes(), "every episode's database was closed");
    }

    @Test
    void noisyDemonstrationsMakeMistakesButStillSucceed() {
        Noise noisy = new Noise(1, 1, 1);
        for (Task t : suite.tasks(Split.TRAIN, 40)) {
            Trajectory done = OracleRun.run(suite, t, DEFAULTS, noisy);
            assertEquals(1.0, done.reward().components().get("pass"), t.id());
            assertEquals(4, done.stats().toolCalls(), "a wasted COUNT(*), a refused DESCRIBE, the gold statement, the commit");
            assertEquals(3, done.stats().toolSuccesses());
            assertTrue(done.turns().get(0).text().contains("carefully"), "filler in the thought");
            assertTrue(done.turns().get(3).text().contains("MySQL"), done.turns().get(3).text());
        }
    }

    @Test
    void aFinalMessageCountsWhenNothingWasCommitted() {
        List<Task> tasks = suite.tasks(Split.TRAIN, 60);
        Task question = tasks.stream().filter(t -> t.metadata().get(SqlTasks.TYPE).equals("counting")).findFirst().orElseThrow();
        try (TaskEnvironment env = suite.open(question, "q")) {
            String gold = AnswerMatcher.clean(SqlEpisode.goldOf(question.answer())).get(0);
            assertEquals(1.0, env.score(ended(question, gold, StopReason.FINAL_ANSWER)).components().get("correct"));
            assertEquals(1.0, env.score(ended(question, "[\"" + gold + "\"]", StopReason.FINAL_ANSWER)).components().get("correct"));
            assertEquals(0.0, env.score(ended(question, "It is " + gold, StopReason.FINAL_ANSWER)).components().get("correct"),
                    "AgentBench compares the whole text");
            assertEquals(0.0, env.score(ended(question, null, StopReason.MAX_TURNS)).components().get("correct"));
            // A commit wins over the final message, and is made once.
            assertTrue(call("q", SqlTools.COMMIT_FINAL_ANSWER, "answers", List.of("-1"), 5000).startsWith("Committed [\"-1\"]"));
            assertEquals(0.0, env.score(ended(question, gold, StopReason.FINAL_ANSWER)).components().get("correct"));
            assertTrue(call("q", SqlTools.COMMIT_FINAL_ANSWER, "answers", List.of(gold), 5000).contains("already committed"));
            assertTrue(sql("q", "SELECT 1").contains("already committed"), "no statement runs after a commit");
        }
        assertTrue(sql("q", "SELECT 1").contains("no sql environment is open for episode q"));
    }

    @Test
    void aModificationIsScoredByTheTableItLeaves() {
        Task insert = suite.tasks(Split.TRAIN, 100).stream().filter(t -> t.metadata().get(SqlTasks.TYPE).equals("INSERT"))
                .findFirst().orElseThrow();
        try (TaskEnvironment env = suite.open(insert, "m")) {
            assertEquals(0.0, env.score(ended(insert, "done", StopReason.FINAL_ANSWER)).components().get("correct"), "untouched");
            assertTrue(sql("m", insert.metadata().get(SqlTasks.SQL)).startsWith("Query OK, 1 row affected"));
            assertEquals(0.0, env.score(ended(insert, null, StopReason.MAX_TURNS)).components().get("correct"), "never answered");
            assertEquals(1.0, env.score(ended(insert, "anything", StopReason.FINAL_ANSWER)).components().get("correct"));
            sql("m", "DROP TABLE " + SqlTable.fromJson(insert.metadata().get(SqlTable.METADATA_KEY), "t").get(0).name());
            assertEquals(0.0, env.score(ended(insert, "done", StopReason.FINAL_ANSWER)).components().get("correct"), "table gone");
        }
    }

    @Test
    void aQueryPastTheCallsTimeLimitIsStoppedWithAClearError() {
        Task t = suite.tasks(Split.TRAIN, 1).get(0);
        try (TaskEnvironment env = suite.open(t, "slow")) {
            long t0 = System.nanoTime();
            String r = call("slow", SqlTools.EXECUTE_SQL, "query",
                    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT COUNT(*) FROM r", 2000);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(r.startsWith(ToolStatus.ERROR + ": the statement ran past its time limit of 1600 ms"), r);
            assertTrue(ms < 2500, ms + " ms");
            assertEquals(29_000, SqlTools.statementLimit(30_000));
            assertTrue(sql("slow", "SELECT 1 AS one").contains("| one |"), "the database still answers");
        }
    }

    @Test
    void tasksTravelWithEverythingTheirDatabaseNeeds() throws Exception {
        Task t = suite.tasks(Split.HELDOUT, 1).get(0);
        Task copy = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(t), Task.class);
        assertEquals(t, copy);
        SqlSuite elsewhere = new SqlSuite(99, 1, 1, 10, new dev.agentswarm.core.reward.RewardWeights(Map.of("correct", 1.0)));
        Trajectory done = OracleRun.run(elsewhere, copy, DEFAULTS, Noise.NONE);
        assertEquals(1.0, done.reward().components().get("pass"), "another node, another seed: the task alone suffices");
    }

    @Test
    void malformedTasksAreRefusedNamingTheField() {
        Task good = suite.tasks(Split.TRAIN, 1).get(0);
        Map<String, String> meta = new HashMap<>(good.metadata());
        meta.remove(SqlTable.METADATA_KEY);
        var none = assertThrows(IllegalArgumentException.class, () -> suite.open(new Task("x", "q", good.answer(), meta), "e1"));
        assertTrue(none.getMessage().contains("sql task x has no \"tables\" metadata"), none.getMessage());
        meta.put(SqlTable.METADATA_KEY, "[{\"name\": \"t\", \"columns\": [{\"name\": \"a\"}], \"rows\": [[1, 2]]}]");
        var rows = assertThrows(IllegalArgumentException.class, () -> suite.open(new Task("x", "q", good.answer(), meta), "e2"));
        assertTrue(rows.getMessage().contains("row 0 has 2 values for 1 columns"), rows.getMessage());
        meta.put(SqlTable.METADATA_KEY, "{oops");
        var json = assertThrows(IllegalArgumentException.class, () -> suite.open(new Task("x", "q", good.answer(), meta), "e3"));
        assertTrue(json.getMessage().contains("\"tables\" is not JSON"), json.getMessage());
        var answer = assertThrows(IllegalArgumentException.class, () -> suite.open(new Task("x", "q", null, good.metadata()), "e4"));
        assertTrue(answer.getMessage().contains("no answer"), answer.getMessage());
        assertEquals(0, suite.openEpisodes());
    }

    @Test
    void badConfigurationIsRefusedByName() {
        Config block = ROOT.getConfig("agentswarm.environments.sql");
        var typo = assertThrows(IllegalArgumentException.class,
                () -> SqlSuite.fromConfig(ConfigFactory.parseString("trian-size = 3").withFallback(block)));
        assertTrue(typo.getMessage().contains("unknown key(s) [trian-size]"), typo.getMessage());
        var type = assertThrows(IllegalArgumentException.class,
                () -> SqlSuite.fromConfig(ConfigFactory.parseString("train-size = many").withFallback(block)));
        assertTrue(type.getMessage().contains("train-size"), type.getMessage());
        var size = assertThrows(IllegalArgumentException.class,
                () -> SqlSuite.fromConfig(ConfigFactory.parseString("heldout-size = 0").withFallback(block)));
        assertTrue(size.getMessage().contains("heldout-size must be >= 1"), size.getMessage());
        var weight = assertThrows(IllegalArgumentException.class,
                () -> SqlSuite.fromConfig(ConfigFactory.parseString("reward.corect = 1").withFallback(block)));
        assertTrue(weight.getMessage().contains("corect"), weight.getMessage());
        EpisodeSpec spec = suite.spec(DEFAULTS);
        assertEquals("hermes", spec.format());
        assertEquals(List.of("execute_sql", "commit_final_answer"), spec.tools());
        assertEquals(10, spec.maxTurns());
    }
}
