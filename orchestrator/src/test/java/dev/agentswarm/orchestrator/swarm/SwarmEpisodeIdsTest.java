package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SwarmEpisodeIdsTest {

    @Test
    void anEpisodeIdGivesBackItsAgentAttemptAndRun() {
        assertEquals("run-1:root", SwarmEpisodeIds.of("run-1", "root", 1));
        String retry = SwarmEpisodeIds.of("run-1", "root/c/x", 3);
        assertEquals("run-1:root/c/x#3", retry);
        assertEquals("root/c/x", SwarmEpisodeIds.agentOf(retry));
        assertEquals(3, SwarmEpisodeIds.attemptOf(retry));
        assertEquals(1, SwarmEpisodeIds.attemptOf("run-1:root/a"));
        assertEquals("root/a@2", SwarmEpisodeIds.agentOf("run-1:root/a@2"), "a re-planned agent's @round stays in its path");
        assertEquals("run-1", SwarmEpisodeIds.runIdOf("run-1:root"));
        assertEquals("run-1:root/a", SwarmEpisodeIds.runIdOf("run-1:root/a"), "only a root's own episode names its run");
    }

    @Test
    void theParentIsOneLevelUpAndTheRootHasNone() {
        assertEquals("root/c", SwarmEpisodeIds.parentOf("root/c/x"));
        assertEquals("root", SwarmEpisodeIds.parentOf("root/c"));
        assertNull(SwarmEpisodeIds.parentOf("root"));
    }
}
