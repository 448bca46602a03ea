package dev.agentswarm.app.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.BatchRunner;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.EcosystemFixtures;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node's MCP servers' calls, as /metrics shows them: server-everything called by a scripted episode. */
class McpMetersTest {

    @Test
    void aWorkerNodeShowsItsMcpServersCallsByOutcome() throws Exception {
        assumeTrue(EcosystemFixtures.available() || EcosystemFixtures.required(), "the MCP servers from npm are not installed (bin/test installs them)");
        Config cfg = ConfigFactory.parseString("agentswarm.http.port = 0\n"
                        + "agentswarm.mcp.servers.meters-everything { command = " + EcosystemFixtures.hocon(EcosystemFixtures.everything("stdio"))
                        + ", prefix = \"ev.\" }")
                .withFallback(SwarmNode.loadConfig(null)).resolve();
        ScriptedPolicy policy = ScriptedPolicy.replies(
                "<tool_call>\n{\"name\": \"ev.echo\", \"arguments\": {\"message\": \"hi\"}}\n</tool_call>\n"
                        + "<tool_call>\n{\"name\": \"ev.echo\", \"arguments\": {\"message\": \"again\"}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"ev.get-sum\", \"arguments\": {\"a\": 40, \"b\": 2}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"finish\", \"arguments\": {\"answer\": \"42\"}}\n</tool_call>");
        try (SwarmNode node = SwarmNode.start(cfg, system -> new EpisodeServices(policy, EpisodeRuns.nodeTools(cfg)), null)) {
            EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withLimits(5, 4000, 1500, 60_000, 5_000)
                    .withTools(List.of("ev.echo", "ev.get-sum", "finish"));
            List<Trajectory> ran = EpisodeRuns.runAll(node, List.of(new BatchRunner.Job("mcp-1", "g", Task.of("t", "Add 40 and 2"), spec)), 1, t -> {});
            assertEquals(StopReason.FINAL_ANSWER, ran.get(0).stopReason(), ran.get(0).toString());
            PrometheusText m = NodeEndpointsTest.scrape(node);
            assertEquals(2, m.value("agentswarm_mcp_calls_total", Map.of("server", "meters-everything", "tool", "echo", "outcome", "ok")), 0.0);
            assertEquals(1, m.value("agentswarm_mcp_calls_total", Map.of("server", "meters-everything", "tool", "get-sum", "outcome", "ok")), 0.0);
            assertEquals(3, m.value("agentswarm_mcp_call_duration_seconds_count", Map.of("server", "meters-everything")), 0.0);
        }
    }
}
