package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A learner opens only run folders inside its node's folder of runs, however the folder a batch names is spelled. */
class TrainingRunsTest {

    @Test
    void aRunInsideTheBaseIsOpenedAsItsRealPath(@TempDir Path dir) throws Exception {
        Path base = Files.createDirectories(dir.resolve("runs"));
        Path run = Files.createDirectories(base.resolve("train-1"));
        assertEquals(run.toRealPath(), TrainingRuns.inside(base, run));
        assertEquals(run.toRealPath(), TrainingRuns.inside(base, base.resolve("train-1/../train-1")));
        assertEquals(base.toRealPath(), TrainingRuns.inside(base, base), "a job in its own JVM names its run as the base");
    }

    @Test
    void aFolderOutsideTheBaseIsRefusedHoweverItIsSpelled(@TempDir Path dir) throws Exception {
        Path base = Files.createDirectories(dir.resolve("runs"));
        Path foreign = Files.createDirectories(dir.resolve("foreign"));
        Files.writeString(foreign.resolve(Training.CONFIG_FILE), "agentswarm.train.suite = arithmetic\n");
        Path link = Files.createSymbolicLink(base.resolve("link"), foreign);
        for (Path named : new Path[] {foreign, base.resolve("../foreign"), link, Path.of("/"), dir.resolve("runs-other")}) {
            String why = assertThrows(IllegalArgumentException.class, () -> TrainingRuns.inside(base, named)).getMessage();
            assertTrue(why.contains("refused") && why.contains("not inside this learner node's folder of runs"), named + ": " + why);
        }
        String missingBase = assertThrows(IllegalArgumentException.class, () -> TrainingRuns.inside(dir.resolve("none"), foreign)).getMessage();
        assertTrue(missingBase.contains("does not exist"), missingBase);
        String missingRun = assertThrows(IllegalArgumentException.class, () -> TrainingRuns.inside(base, base.resolve("gone"))).getMessage();
        assertTrue(missingRun.contains("is not readable on this learner node"), missingRun);
    }

    @Test
    void openRefusesAForeignRunBeforeReadingAnythingOfIt(@TempDir Path dir) throws Exception {
        Path base = Files.createDirectories(dir.resolve("runs"));
        Path foreign = Files.createDirectories(dir.resolve("foreign"));
        Files.writeString(foreign.resolve(Training.CONFIG_FILE), "this is { not HOCON\n");
        var node = ConfigFactory.parseString("agentswarm.node.learner-runs-dir = \"" + base + "\"").withFallback(SwarmNode.loadConfig(null));
        String why = assertThrows(IllegalArgumentException.class, () -> TrainingRuns.open(foreign, node)).getMessage();
        assertTrue(why.contains("refused") && why.contains(foreign.toString()), why);
    }
}
