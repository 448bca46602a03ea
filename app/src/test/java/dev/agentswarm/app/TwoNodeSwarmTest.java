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
        Config cfg = SwarmNode.loadConfig(null);
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
}
