package dev.agentswarm.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RunCommandTest {

    @Test
    void singleRunsOnAClusterTakeEpisodeIdsOfTheirOwn() {
        assertEquals("run-1", RunCommand.singleEpisodeId(false), "on its own node the id stays the one replays know");
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = RunCommand.singleEpisodeId(true);
            assertTrue(id.startsWith("run-") && !id.equals("run-1"), id);
            ids.add(id);
        }
        assertEquals(1000, ids.size(), "jobs joining one cluster at once never share an episode id");
    }
}
