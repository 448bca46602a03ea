package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.orchestrator.swarm.SwarmRunIds;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A swarm's folder is its run id inside the node's swarms' folder, and nowhere else; new run ids never meet. */
class ClusterSwarmsTest {

    @Test
    void aRunIdNamesAFolderInsideTheSwarmsFolderOnly(@TempDir Path dir) {
        Path swarms = dir.resolve("swarms");
        assertEquals(swarms.resolve("swarm-1").toAbsolutePath(), ClusterSwarms.runFolder(swarms, "swarm-1"));
        for (String runId : new String[] {"../x", "/etc", "..", "a/b", ""}) {
            String why = assertThrows(IllegalArgumentException.class, () -> ClusterSwarms.runFolder(swarms, runId)).getMessage();
            assertTrue(why.contains("run id") && why.contains("refused") || why.contains("empty"), runId + ": " + why);
        }
    }

    @Test
    void newRunIdsAreValidAndCarry128RandomBits() {
        String id = ClusterSwarms.newRunId();
        assertEquals(null, SwarmRunIds.problem(id));
        assertTrue(id.matches("swarm-\\d{8}-\\d{6}-[0-9a-f]{32}"), id);
        assertTrue(!id.equals(ClusterSwarms.newRunId()));
    }
}
