package dev.agentswarm.app;

import dev.agentswarm.core.protocol.Trajectory;
import com.typesafe.config.Config;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.workers.SandboxPool;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.pekko.actor.typed.Props;

/** Runs a list of episodes on a node and returns their trajectories in the order of the jobs. */
public final class EpisodeRuns {

    private EpisodeRuns() {}

    /** The tools every node of the command line offers. */
    public static ToolRegistry builtInTools() {
        return ToolRegistry.of(new CalculatorTool(), new FinishTool());
    }

    /**
     * The built-in tools and the code tools (python, code_interpreter, bash) of this configuration's
     * sandbox, which starts on the first code call.
     */
    public static ToolRegistry nodeTools(Config config) {
        return withoutOverrides(config).withIdempotency(config.getConfig("agentswarm.tools"));
    }

    private static ToolRegistry withoutOverrides(Config config) {
        ToolRegistry tools = builtInTools();
        for (Tool t : SandboxPool.fromConfig(config).tools()) tools = tools.plus(t);
        return tools;
    }

    /**
     * The node's tools, then each suite tool whose name they do not already offer; each with its
     * idempotency as {@code agentswarm.tools.NAME.idempotent} overrides it.
     */
    public static ToolRegistry nodeTools(Config config, dev.agentswarm.environments.Suites suites) {
        ToolRegistry tools = withoutOverrides(config);
        for (Tool t : suites.tools()) if (tools.find(t.name()).isEmpty()) tools = tools.plus(t);
        return tools.withIdempotency(config.getConfig("agentswarm.tools"));
    }

    /**
     * Runs {@code jobs} with at most {@code maxInflight} in flight, showing a progress bar on
     * stderr when there are more than a few; {@code each} sees every trajectory as it arrives.
     */
    public static List<Trajectory> runAll(SwarmNode node, List<BatchRunner.Job> jobs, int maxInflight,
                                          Consumer<Trajectory> each) throws Exception {
        Map<String, Trajectory> byId = new HashMap<>();
        CompletableFuture<Long> done = new CompletableFuture<>();
        ProgressBar bar = jobs.size() > 4 ? progressBar("episodes", jobs.size()) : null;
        try {
            java.time.Duration ackTimeout = node.system().settings().config().getDuration("agentswarm.train.ack-timeout");
            node.system().systemActorOf(BatchRunner.create(node.workerRegion(), node.workerEntities(), jobs.iterator(),
                    maxInflight, ackTimeout, t -> {
                        byId.put(t.episodeId(), t);
                        each.accept(t);
                        if (bar != null) bar.step();
                    }, done), "batch-" + System.nanoTime(), Props.empty());
            long limitMs = jobs.stream().mapToLong(j -> j.spec().deadlineMillis()).max().orElse(0)
                    * Math.max(1, (jobs.size() + maxInflight - 1) / maxInflight) + Duration.ofSeconds(30).toMillis();
            done.get(limitMs, TimeUnit.MILLISECONDS);
        } finally {
            if (bar != null) bar.close();
        }
        return jobs.stream().map(j -> byId.get(j.episodeId())).toList();
    }

    /**
     * A progress bar on stderr with rate and ETA: redrawn in place on a terminal, one line every
     * five seconds when stderr goes to a file or a pipe (CI logs stay readable).
     */
    public static ProgressBar progressBar(String task, long max) {
        return builder(task, max).build();
    }

    /** The same bar for work resumed at {@code done} of {@code max}, {@code elapsed} already spent on it. */
    public static ProgressBar progressBarFrom(String task, long max, long done, java.time.Duration elapsed) {
        return builder(task, max).startsFrom(done, elapsed).build();
    }

    private static ProgressBarBuilder builder(String task, long max) {
        boolean terminal = System.console() != null;
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(max).setStyle(ProgressBarStyle.ASCII)
                .setConsumer(terminal ? new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)
                        : new me.tongfei.progressbar.DelegatingProgressBarConsumer(System.err::println))
                .showSpeed().setUpdateIntervalMillis(terminal ? 250 : 5000);
    }
}
