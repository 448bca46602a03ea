package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A long episode's trajectory, past Artery's ordinary frame (256 KiB), reaches a requester on another
 * node through its node's answer relay on the large-message lane; one past even the large frame is
 * answered with an error that says so, instead of leaving the requester waiting.
 */
class LargeTrajectoryTest {

    private static final String HUGE = "x".repeat(1_200_000);

    private static Trajectory runOneHugeEpisode(Config workerExtra) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
        EpisodeSpec spec = EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")).withTools(List.of("calculator"));
        try (SwarmNode requester = SwarmNode.start(cfg.withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of("orchestrator"))),
                sys -> null, null);
             SwarmNode worker = SwarmNode.start(workerExtra.withFallback(cfg).withValue("pekko.cluster.roles",
                             ConfigValueFactory.fromIterable(List.of("worker"))),
                     new EpisodeServices(ScriptedPolicy.replies(HUGE), EpisodeRuns.builtInTools()), requester.address())) {
            requester.awaitWorkers(1, java.time.Duration.ofSeconds(20));
            CompletableFuture<List<Trajectory>> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return EpisodeRuns.runAll(requester, List.of(new BatchRunner.Job("big-1", "g", Task.of("t", "Say a lot."), spec)), 1,
                            t -> {});
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            return run.get(60, TimeUnit.SECONDS).get(0);
        }
    }

    @Test
    void aTrajectoryOfMegabytesCrossesNodesWhole() throws Exception {
        Trajectory t = runOneHugeEpisode(ConfigFactory.empty());
        assertEquals(StopReason.FINAL_ANSWER, t.stopReason(), String.valueOf(t.error()));
        assertEquals(HUGE, t.finalAnswer());
    }

    @Test
    void oneLargerThanEvenTheLargeFrameIsAnsweredWithWhatToRaise() throws Exception {
        Trajectory t = runOneHugeEpisode(ConfigFactory.parseString("pekko.remote.artery.advanced.maximum-large-frame-size = 2 MiB"));
        assertEquals(StopReason.CRASHED, t.stopReason());
        assertTrue(t.error().contains("maximum-large-frame-size"), t.error());
    }
}
