package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.protocol.LearnerProtocol;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;

/**
 * A training batch of megabytes reaches the learner singleton on another node: it travels on the
 * large-message lane, in parts that each fit a large frame, and the learner puts them together
 * (here it then answers that the run folder does not exist: an answer at all is what is tested).
 */
class LargeTrainBatchTest {

    @Test
    void aBatchLargerThanALargeFrameArrivesInPartsAndIsAnswered() throws Exception {
        Config cfg = ConfigFactory.parseString("""
                pekko.actor.serialize-messages = on
                pekko.remote.artery.advanced.maximum-large-frame-size = 1 MiB
                agentswarm.weights.chunk-size = 512 KiB
                """).withFallback(SwarmNode.loadConfig(null));
        try (SwarmNode learner = SwarmNode.start(cfg.withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of("learner"))),
                sys -> null, null);
             SwarmNode job = SwarmNode.start(cfg.withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of("orchestrator"))),
                     sys -> null, learner.address())) {
            List<List<Trajectory>> groups = new ArrayList<>();
            for (int g = 0; g < 6; g++) {
                List<Trajectory> group = new ArrayList<>();
                for (int k = 0; k < 2; k++) {
                    // 300 KB of prompt each: 3.6 MB in all, past any frame of the ordinary lane and the 1 MiB large frame.
                    group.add(new Trajectory("g" + g + "#" + k, "g" + g, "t", List.of(Message.user("y".repeat(300_000))), List.of(), "x",
                            StopReason.FINAL_ANSWER, null, null, null));
                }
                groups.add(group);
            }
            TestProbe<LearnerProtocol.TrainReply> replies = TestProbe.create(job.system());
            LearnerProtocol.TrainBatch batch = new LearnerProtocol.TrainBatch(1, groups, 0, 0, "/nonexistent/run", replies.getRef());
            assertTrue(batch.split(512 * 1024).size() > 3, "sent in parts");
            for (LearnerProtocol.TrainBatch part : batch.split(512 * 1024)) job.learner().tell(part);
            LearnerProtocol.BatchTrained answer = (LearnerProtocol.BatchTrained) replies.receiveMessage(Duration.ofSeconds(30));
            assertTrue(answer.error().contains("/nonexistent/run"), answer.error());
        }
    }
}
