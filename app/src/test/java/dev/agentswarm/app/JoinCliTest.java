package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.OraclePolicy;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import dev.agentswarm.workers.EpisodeServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job joins a running cluster: {@code swarm eval --join} runs its episodes on the cluster's
 * worker node, with that node's policy (here the suite's oracle) and its environments, and leaves.
 */
class JoinCliTest {

    @Test
    void evalJoinsTheClusterAndItsEpisodesRunOnTheWorkerNodesPolicy(@TempDir Path dir) throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null))
                .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(List.of("worker")));
        Suite arithmetic = SuiteCatalog.one(cfg, "arithmetic");
        List<Task> tasks = arithmetic.tasks(Split.HELDOUT, 6); // the ones the eval draws
        EpisodeSpec spec = arithmetic.spec(EpisodeSpec.fromConfig(cfg.getConfig("agentswarm.episode")));
        OraclePolicy oracle = new OraclePolicy(arithmetic, spec.format(), Evaluation.taskOfEpisode(tasks), Noise.NONE);
        Suites suites = new Suites(List.of(arithmetic));
        try (SwarmNode worker = SwarmNode.start(cfg, new EpisodeServices(oracle, EpisodeRuns.nodeTools(cfg, suites), suites), null)) {
            String seed = worker.address().toString();
            Path out = dir.resolve("eval");
            CliTest.Result r = swarm("eval", "--suite", "arithmetic", "--tasks", "6", "--samples", "2", "--join", seed,
                    "--out", out.toString(), "--json");
            assertEquals(0, r.exit(), r.err());
            JsonNode j = r.json();
            assertEquals(12, j.get("episodes").asInt());
            assertEquals(1.0, j.get("pass_hat_k").get("2").asDouble(), 1e-9, "the worker node's oracle answered: " + r.out());
            assertEquals(12, Files.readAllLines(out.resolve("trajectories.jsonl")).size());
            assertTrue(r.out().contains("the workers' of " + seed), r.out());
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (worker.upMembers(SwarmNode.JOB_ROLE) > 0 && System.nanoTime() < deadline) Thread.sleep(50);
            assertEquals(0, worker.upMembers(SwarmNode.JOB_ROLE), "the job's node left the cluster when the job ended");

            CliTest.Result mixed = swarm("eval", "--suite", "arithmetic", "--policy", "oracle", "--join", seed, "--out", out.toString());
            assertNotEquals(0, mixed.exit());
            assertTrue(mixed.err().contains("worker nodes bring the policy"), mixed.err());
        }
    }

    @Test
    void aJoinAddressThatIsNotANodeAddressIsRefused(@TempDir Path dir) {
        CliTest.Result r = swarm("eval", "--suite", "arithmetic", "--join", "http://127.0.0.1:2551", "--out", dir.toString());
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("pekko://swarm@HOST:PORT"), r.err());
    }
}
