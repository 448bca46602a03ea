package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.workers.EpisodeServices;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The embedded default: a one-node cluster whose episodes run in the worker sharding region, messages serialised as between nodes. */
class SwarmNodeTest {

    @Test
    void episodesRunThroughTheShardedWorkersWithSerialisationChecked() throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
        List<Task> tasks = DemoScript.tasks(200, 11);
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode"));
        try (SwarmNode node = SwarmNode.startEmbedded(cfg, new EpisodeServices(DemoScript.policy(tasks), EpisodeRuns.builtInTools()))) {
            AtomicLong dead = DeadLetterCounter.attach(node.system());
            List<BatchRunner.Job> jobs = tasks.stream().map(t -> new BatchRunner.Job("e-" + t.id(), "g", t, spec)).toList();
            List<Trajectory> out = EpisodeRuns.runAll(node, jobs, 50, t -> {});
            assertEquals(200, out.size());
            for (int i = 0; i < tasks.size(); i++) {
                Trajectory t = out.get(i);
                assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), t.toString());
                assertEquals(tasks.get(i).answer(), t.finalAnswer());
            }
            assertEquals(0, dead.get(), "no dead letters");
        }
    }
}
