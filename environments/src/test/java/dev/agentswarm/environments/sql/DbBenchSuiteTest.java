package dev.agentswarm.environments.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;


import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.RewardWeights;

import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OracleRun;
import dev.agentswarm.environments.Split;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DbBenchSuiteTest {

    private static final EpisodeSpec DEFAULTS = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"));
    private static final Path SAMPLE = Path.of("src/test/resources/dbbench/dev-sample.jsonl");
    private static final Path REAL_DEV = Path.of("../../shared/data/dbbench/dev.jsonl");
    private static final RewardWeights WEIGHTS = new RewardWeights(Map.of("correct", 1.0, "format", 0.1, "tool_call", 0.1));

    private static DbBenchSuite suite(Path train) {
        return new DbBenchSuite(train, train, 15, WEIGHTS);
    }

    @Test
    void theOracleSolvesTheCommittedSampleThroughTheRealDatabase() {
        DbBenchSuite s = suite(SAMPLE);
        List<Task> tasks = s.tasks(Split.TRAIN, 100);
        assertEquals(5, tasks.size());
        for (Task t : tasks) {
            Trajectory done = OracleRun.run(s, t, DEFAULTS, Noise.NONE);
            assertEquals(1.0, done.reward().components().get("pass"), t.id() + " (" + t.metadata().get(SqlTasks.TYPE) + ")");
        }
    }

    @Test
    void everyModificationOfTheRealDevFileReproducesItsGoldHash() {
        assumeTrue(Files.exists(REAL_DEV), "../shared/data is not beside the repository");
        DbBenchSuite s = suite(REAL_DEV);
        int modifications = 0;
        for (Task t : s.tasks(Split.TRAIN, 1000)) {
            Trajectory done = OracleRun.run(s, t, DEFAULTS, new Noise(0.5, 0.5, 0));
            assertEquals(1.0, done.reward().components().get("pass"), t.id());
            if (AnswerMatcher.isModification(t.metadata().get(SqlTasks.TYPE))) modifications++;
        }
        assertEquals(40, modifications, "the dev file's 20 INSERT and 20 UPDATE tasks");
    }

    @Test
    void aWrongAnswerAndAnUntouchedTableFail() {
        DbBenchSuite s = suite(SAMPLE);
        for (Task t : s.tasks(Split.TRAIN, 100)) {
            Trajectory wrong = new Trajectory("e", t.id(), t.id(), List.of(), List.of(), "[\"no such value\"]",
                    dev.agentswarm.core.protocol.StopReason.FINAL_ANSWER, null, null, null);
            try (var env = s.open(t, "e-" + t.id())) {
                assertEquals(0.0, env.score(wrong).components().get("correct"), t.id());
            }
        }
    }

    @Test
    void malformedFilesNameTheLineAndField(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, Files.readAllLines(SAMPLE).get(0) + "\n{\"description\": \"q\", \"label\": [\"1\"]}\n");
        var e = assertThrows(IllegalArgumentException.class, () -> suite(bad).tasks(Split.TRAIN, 10));
        assertTrue(e.getMessage().contains("bad.jsonl:2") && e.getMessage().contains("\"table\""), e.getMessage());
        Path notJson = dir.resolve("broken.jsonl");
        Files.writeString(notJson, "{not json\n");
        var j = assertThrows(IllegalArgumentException.class, () -> suite(notJson).tasks(Split.TRAIN, 10));
        assertTrue(j.getMessage().contains("broken.jsonl:1"), j.getMessage());
        var missing = assertThrows(IllegalArgumentException.class, () -> suite(dir.resolve("nope.jsonl")).tasks(Split.TRAIN, 1));
        assertTrue(missing.getMessage().contains("not found"), missing.getMessage());
    }

    @Test
    void mySqlEscapesBecomeTheCharactersTheyStandFor() {
        assertEquals("INSERT INTO t VALUES ('a\nb', 'it''s', 'c\\d')", MySqlText.unescapeLiterals("INSERT INTO t VALUES ('a\\nb', 'it\\'s', 'c\\\\d')"));
        assertEquals("SELECT `a\\b`", MySqlText.unescapeLiterals("SELECT `a\\b`"), "outside a literal nothing changes");
    }
}
