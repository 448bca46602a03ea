package dev.agentswarm.testkit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.WorkerProtocol;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.workers.EpisodeServices;
import dev.agentswarm.workers.RolloutWorker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Runs episodes on {@link ActorTestKit} in one call: a {@link RolloutWorker} with the given
 * policy and tools, a {@link RunEpisode} per task, and the trajectories back. Messages are
 * serialised as between nodes ({@code serialize-messages = on}), so a test catches what a cluster
 * would reject.
 *
 * <pre>{@code
 * try (EpisodeHarness h = EpisodeHarness.create(ScriptedPolicy.replies("<tool_call>…</tool_call>", "42"), new CalculatorTool())) {
 *     TrajectoryAssert.assertThat(h.run(Task.of("t1", "What is 6*7?"))).hasFinalAnswer("42");
 * }
 * }</pre>
 */
public final class EpisodeHarness implements AutoCloseable {

    /** Configuration of the harness's own test kit: the project defaults plus serialisation checks. */
    public static final Config TEST_CONFIG = ConfigFactory.parseString("""
            pekko.actor.serialize-messages = on
            pekko.loglevel = WARNING
            """).withFallback(ConfigFactory.load());

    private final ActorTestKit kit;
    private final boolean ownsKit;
    private final ActorRef<WorkerProtocol.Command> worker;
    private final EpisodeSpec defaultSpec;
    private final AtomicLong episodes = new AtomicLong();

    private EpisodeHarness(ActorTestKit kit, boolean ownsKit, EpisodeServices services) {
        this.kit = kit;
        this.ownsKit = ownsKit;
        Config config = kit.system().settings().config();
        this.defaultSpec = EpisodeSpec.fromConfig(config.getConfig("agentswarm.episode"))
                .withTools(List.copyOf(services.tools().names()));
        this.worker = kit.spawn(RolloutWorker.create(services, config.getInt("agentswarm.worker.answered-memory")));
    }

    /** A harness with its own test kit (closed by {@link #close()}). */
    public static EpisodeHarness create(Policy policy, Tool... tools) {
        return new EpisodeHarness(ActorTestKit.create("harness", TEST_CONFIG), true,
                new EpisodeServices(policy, ToolRegistry.of(tools)));
    }

    /** A harness on a test kit the test manages. */
    public static EpisodeHarness on(ActorTestKit kit, Policy policy, ToolRegistry tools) {
        return new EpisodeHarness(kit, false, new EpisodeServices(policy, tools));
    }

    /**
     * A harness whose node also offers task environments (suites): episodes of their tasks get their
     * tools' state and are scored.
     */
    public static EpisodeHarness on(ActorTestKit kit, Policy policy, ToolRegistry tools, TaskEnvironments environments) {
        return new EpisodeHarness(kit, false, new EpisodeServices(policy, tools, environments));
    }

    /** The configured episode settings with every tool of this harness; adjust with its {@code with…} methods. */
    public EpisodeSpec spec() {
        return defaultSpec;
    }

    /** Runs one task with the configured episode settings, offering every tool of this harness. */
    public Trajectory run(Task task) {
        return run(task, defaultSpec);
    }

    public Trajectory run(Task task, EpisodeSpec spec) {
        return runAll(List.of(task), spec).get(0);
    }

    /** Runs all tasks concurrently; trajectories come back in the order of the tasks. */
    public List<Trajectory> runAll(List<Task> tasks, EpisodeSpec spec) {
        List<String> ids = tasks.stream().map(t -> "ep-" + episodes.incrementAndGet() + "-" + t.id()).toList();
        return runAll(ids, tasks, spec);
    }

    /** Runs all tasks concurrently under the given episode ids (a replay must reuse the recorded ones). */
    public List<Trajectory> runAll(List<String> episodeIds, List<Task> tasks, EpisodeSpec spec) {
        if (episodeIds.size() != tasks.size()) throw new IllegalArgumentException("one episode id per task");
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        for (int i = 0; i < tasks.size(); i++) {
            Task task = tasks.get(i);
            worker.tell(new RunEpisode(episodeIds.get(i), task.id(), task, spec, 0, probe.getRef()));
        }
        Duration wait = Duration.ofMillis(spec.deadlineMillis()).plusSeconds(10);
        Map<String, Trajectory> byId = new HashMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            Trajectory t = probe.receiveMessage(wait);
            byId.put(t.episodeId(), t);
        }
        probe.expectNoMessage(Duration.ofMillis(20)); // exactly one answer per episode
        return episodeIds.stream().map(byId::get).toList();
    }

    /** Runs episode {@code episodeId} on {@code task}, resuming after {@code history} (what it did before a crash). */
    public Trajectory resume(String episodeId, Task task, EpisodeSpec spec, EpisodeHistory history) {
        TestProbe<Trajectory> probe = kit.createTestProbe(Trajectory.class);
        worker.tell(new RunEpisode(episodeId, task.id(), task, spec, 0, probe.getRef()).withHistory(history));
        Trajectory t = probe.receiveMessage(Duration.ofMillis(spec.deadlineMillis()).plusSeconds(10));
        probe.expectNoMessage(Duration.ofMillis(20));
        return t;
    }

    /**
     * Starts episode {@code episodeId} as a swarm runs it: it reports each turn to {@code swarm} (progress,
     * recorded steps, spawn calls, and asks it to journal a turn before calls that must not run twice),
     * resumes after {@code history}, and answers {@code replyTo}.
     */
    public void startInSwarm(String episodeId, Task task, EpisodeSpec spec, EpisodeHistory history,
                             ActorRef<SwarmProtocol.Command> swarm, ActorRef<Trajectory> replyTo) {
        worker.tell(new RunEpisode(episodeId, task.id(), task, spec, 0, replyTo, swarm).withHistory(history));
    }

    public ActorTestKit kit() {
        return kit;
    }

    @Override
    public void close() {
        if (ownsKit) kit.shutdownTestKit();
    }
}
