package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Going multi-node is configuration: two nodes in one JVM on 127.0.0.1 form a cluster, and
 * episodes requested on the first run on the workers of both, their requests and trajectories
 * crossing the wire as Jackson CBOR.
 */
class TwoNodeSwarmTest {

    @Test
    void episodesSpreadOverBothNodesAndAllComeBack() throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
        List<Task> tasks = DemoScript.tasks(300, 5);
        ScriptedPolicy policyA = DemoScript.policy(tasks);
        ScriptedPolicy policyB = DemoScript.policy(tasks);
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode"));
        try (SwarmNode a = SwarmNode.start(cfg, new EpisodeServices(policyA, EpisodeRuns.builtInTools()), null);
             SwarmNode b = SwarmNode.start(cfg, new EpisodeServices(policyB, EpisodeRuns.builtInTools()), a.address())) {
            AtomicLong deadA = DeadLetterCounter.attach(a.system());
            AtomicLong deadB = DeadLetterCounter.attach(b.system());
            List<BatchRunner.Job> jobs = tasks.stream().map(t -> new BatchRunner.Job("x-" + t.id(), "g", t, spec)).toList();
            List<Trajectory> out = EpisodeRuns.runAll(a, jobs, 64, t -> {});
            assertEquals(300, out.size());
            for (int i = 0; i < tasks.size(); i++) {
                assertEquals(StopReason.FINAL_ANSWER, out.get(i).stopReason(), out.get(i).toString());
                assertEquals(tasks.get(i).answer(), out.get(i).finalAnswer());
            }
            assertTrue(policyA.calls() > 0 && policyB.calls() > 0,
                    "both nodes ran episodes: " + policyA.calls() + " / " + policyB.calls() + " policy calls");
            assertEquals(0, deadA.get() + deadB.get(), "no dead letters");
        }
    }

    /** The orchestrator plans 12 sub-agents and adds their answers; each sub-agent computes its number with the calculator. */
    private static ScriptedPolicy swarmScript() {
        return ScriptedPolicy.texts(req -> {
            String agent = dev.agentswarm.testkit.SwarmHarness.agentOf(req.episodeId());
            String last = req.messages().get(req.messages().size() - 1).content();
            if (agent.equals("root")) {
                if (req.turn() > 1) {
                    int sum = 0;
                    for (var m : java.util.regex.Pattern.compile("answer: (\\d+)").matcher(last).results().toList()) sum += Integer.parseInt(m.group(1));
                    return "<tool_call>{\"name\": \"finish\", \"arguments\": {\"answer\": \"" + sum + "\"}}</tool_call>";
                }
                StringBuilder plan = new StringBuilder();
                for (int i = 1; i <= 12; i++) {
                    plan.append(i > 1 ? ", " : "").append("{\"id\": \"n").append(i).append("\", \"goal\": \"Compute ").append(i).append(" * ").append(i)
                            .append("\", \"tools\": [\"calculator\"]}");
                }
                return "<tool_call>{\"name\": \"spawn_subagents\", \"arguments\": {\"subtasks\": [" + plan + "]}}</tool_call>";
            }
            if (req.turn() == 1) {
                String goal = req.messages().get(1).content();
                String expr = goal.substring("Compute ".length(), goal.indexOf('\n'));
                return "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"" + expr + "\"}}</tool_call>";
            }
            return last.replaceAll("(?s).*?([0-9]+).*", "$1");
        });
    }

    @Test
    void aSwarmOnOneNodeRunsItsSubAgentsOnBothAndHearsFromThemAll(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
        ScriptedPolicy policyA = swarmScript();
        ScriptedPolicy policyB = swarmScript();
        try (SwarmNode a = SwarmNode.start(cfg, new EpisodeServices(policyA, EpisodeRuns.builtInTools()), null);
             SwarmNode b = SwarmNode.start(cfg, new EpisodeServices(policyB, EpisodeRuns.builtInTools()), a.address())) {
            AtomicLong deadA = DeadLetterCounter.attach(a.system());
            AtomicLong deadB = DeadLetterCounter.attach(b.system());
            var settings = dev.agentswarm.orchestrator.swarm.SwarmSettings.fromConfig(cfg, java.util.Set.of("calculator", "finish"));
            var outcome = SwarmRun.run(a, settings, Task.of("t", "Add the squares of 1 to 12"), dir, e -> {});
            var r = outcome.result();
            assertEquals("650", r.answer(), r.toString());
            assertEquals(List.of(), r.missing());
            assertEquals(12, r.subAgents().size());
            assertTrue(policyA.calls() > 0 && policyB.calls() > 0,
                    "sub-agents ran on both nodes: " + policyA.calls() + " / " + policyB.calls() + " policy calls");
            // every turn of every sub-agent was reported to the orchestrator, across the wire for node b's
            long turns = dev.agentswarm.orchestrator.swarm.SwarmTrace.read(outcome.trace()).stream()
                    .filter(e -> e.path("kind").asText().equals("turn")).count();
            assertEquals(2 + 12 * 2, turns);
            assertEquals(0, deadA.get() + deadB.get(), "no dead letters");
        }
    }
}
