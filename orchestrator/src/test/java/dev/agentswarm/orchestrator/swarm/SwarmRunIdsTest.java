package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A run id names a folder on the node that runs the swarm: only plain names pass, and new ones carry 128 random bits. */
class SwarmRunIdsTest {

    @Test
    void plainNamesPass() {
        for (String id : new String[] {"swarm-20261126-171500-3fa2", "failover-1", "serve-1234-7", "R_2", "a".repeat(128)}) {
            assertNull(SwarmRunIds.problem(id), id);
        }
    }

    @Test
    void anythingThatCouldNameAnotherFolderIsRefused() {
        for (String id : new String[] {"../x", "..", ".", "/etc/cron.d/x", "a/b", "a\\b", "-rf", "x.y", "", "a b", "x\n", "é",
                "a".repeat(129)}) {
            String why = SwarmRunIds.problem(id);
            assertNotNull(why, id);
            assertTrue(why.contains("run id"), why);
        }
        assertTrue(SwarmRunIds.problem("../x").contains("'../x'"));
    }

    @Test
    void newIdsAreValidAndNeverMeet() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = SwarmRunIds.random("swarm-20261202-040000");
            assertNull(SwarmRunIds.problem(id));
            assertEquals("swarm-20261202-040000-".length() + 32, id.length(), "128 bits in hex: " + id);
            seen.add(id);
        }
        assertEquals(10_000, seen.size());
    }
}
