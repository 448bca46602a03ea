package dev.agentswarm.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import dev.agentswarm.orchestrator.swarm.TrajectoryStore;
import dev.agentswarm.orchestrator.WorkerRoute;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.RolloutWorker;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Runs a whole swarm on {@link ActorTestKit} in one call: a {@link RolloutWorker} with the given
 * policy and tools, an {@link Orchestrator} on the task, and its {@link SwarmResult} and trace back.
 * Episode ids say who asks ({@code RUN:root}, {@code RUN:root/a}, {@code RUN:root/a#2} for a retry),
 * so one scripted policy can play every agent: see {@link #agentOf} and {@link #attemptOf}.
 */
public final class SwarmHarness {

    private final ActorTestKit kit;
    private final ActorRef<WorkerProtocol.Command> worker;
    private final SwarmSettings settings;

    private SwarmHarness(ActorTestKit kit, EpisodeServices services, SwarmSettings settings) {
        this.kit = kit;
        this.settings = settings;
        this.worker = kit.spawn(RolloutWorker.create(services, kit.system().settings().config().getInt("agentswarm.worker.answered-memory")));
    }

    /**
     * A harness on the kit's configuration with {@code overrides} (HOCON, e.g. {@code
     * "agentswarm.swarm.retries = 0"}) on top; sub-agents may use every tool in {@code tools}.
     */
    public static SwarmHarness on(ActorTestKit kit, Policy policy, ToolRegistry tools, String overrides) {
        return on(kit, policy, tools, TaskEnvironments.NONE, overrides);
    }

    /** The same on a node that also offers task environments: a suite task's sub-agents get its tools' state. */
    public static SwarmHarness on(ActorTestKit kit, Policy policy, ToolRegistry tools, TaskEnvironments environments, String overrides) {
        Config config = ConfigFactory.parseString(overrides).withFallback(kit.system().settings().config()).resolve();
        Set<String> names = new TreeSet<>(tools.names());
        return new SwarmHarness(kit, new EpisodeServices(policy, tools, environments), SwarmSettings.fromConfig(config, names));
    }

    public SwarmSettings settings() {
        return settings;
    }

    /** Runs the swarm on {@code task}, its events in {@code trace} (the caller closes it); waits up to the swarm's deadline and a margin. */
    public SwarmResult run(String runId, Task task, SwarmTrace trace) {
        return runOn(runId, task, trace, WorkerRoute.direct(worker));
    }

    private SwarmResult runOn(String runId, Task task, SwarmTrace trace, WorkerRoute route) {
        TestProbe<SwarmResult> probe = kit.createTestProbe(SwarmResult.class);
        kit.spawn(Orchestrator.create(settings, Orchestrator.Place.root(runId), task, route, trace, probe.getRef()));
        SwarmResult r = probe.receiveMessage(settings.budget().deadline().plus(settings.lostAfter()).plusSeconds(10));
        probe.expectNoMessage(Duration.ofMillis(20)); // one result per swarm
        return r;
    }

    /**
     * As {@link #run(String, Task, SwarmTrace)}, with only the episodes {@code delivered} accepts reaching
     * the worker: the others vanish, as with a node that died (cancels always get through).
     */
    public SwarmResult runVia(String runId, Task task, SwarmTrace trace, Predicate<WorkerProtocol.RunEpisode> delivered) {
        WorkerRoute direct = WorkerRoute.direct(worker);
        WorkerRoute lossy = (id, command) -> {
            if (!(command instanceof WorkerProtocol.RunEpisode run) || delivered.test(run)) direct.tell(id, command);
        };
        return runOn(runId, task, trace, lossy);
    }

    /**
     * Starts a durable swarm (its journal on the kit's persistence plugin) on this harness's worker and
     * returns at once: {@code result} hears its answer. Stopping the worker and the orchestrator is the
     * harness's crash; a new harness's durable swarm with the same run id resumes from the journal.
     */
    public ActorRef<Orchestrator.Command> startDurable(String runId, Task task, SwarmTrace trace, ActorRef<SwarmResult> result) {
        return startDurable(runId, task, trace, TrajectoryStore.NONE, result);
    }

    /** The same, keeping sub-agent trajectories in {@code trajectories} (give the resuming harness the same one). */
    public ActorRef<Orchestrator.Command> startDurable(String runId, Task task, SwarmTrace trace, TrajectoryStore trajectories,
                                                       ActorRef<SwarmResult> result) {
        return kit.spawn(Orchestrator.createDurable(settings, Orchestrator.Place.root(runId), task, WorkerRoute.direct(worker), trace,
                trajectories, result));
    }

    /**
     * A durable swarm known to be new ({@link Orchestrator#createNewDurable}): it starts without waiting for
     * its journal's recovery, which must find nothing of {@code runId}.
     */
    public ActorRef<Orchestrator.Command> startNewDurable(String runId, Task task, SwarmTrace trace, ActorRef<SwarmResult> result) {
        return kit.spawn(Orchestrator.createNewDurable(settings, Orchestrator.Place.root(runId), task, WorkerRoute.direct(worker), trace,
                TrajectoryStore.NONE, result));
    }

    /** The worker the harness's swarms run on. */
    public ActorRef<WorkerProtocol.Command> worker() {
        return worker;
    }

    public SwarmResult run(String runId, Task task) {
        try (SwarmTrace trace = SwarmTrace.inMemory()) {
            return run(runId, task, trace);
        }
    }

    /** The agent an episode id belongs to: {@code run-1:root/a#2} → {@code root/a}. */
    public static String agentOf(String episodeId) {
        return Orchestrator.agentOf(episodeId);
    }

    /** Which attempt of its agent an episode id is (1 for the first). */
    public static int attemptOf(String episodeId) {
        return Orchestrator.attemptOf(episodeId);
    }
}
