package dev.agentswarm.app;

import dev.agentswarm.core.protocol.Trajectory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.workers.SandboxPool;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.environments.mcp.McpServers;
import dev.agentswarm.environments.mcp.McpSettings;
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
     * The built-in tools, the code tools (python, code_interpreter, bash) of this configuration's
     * sandbox, which starts on the first code call, and the tools of its MCP servers
     * ({@code agentswarm.mcp.servers}, started on first use: {@link #mcpServers}).
     */
    public static ToolRegistry nodeTools(Config config) {
        return withMcp(ownTools(config), mcpServers(config)).withIdempotency(config.getConfig("agentswarm.tools"));
    }

    /**
     * The node's tools named {@code names}, in that order, with their idempotency as
     * {@code agentswarm.tools} sets it. Only the MCP servers that could offer one of the names (the
     * name starts with the server's prefix and its allow/deny lists let the rest through) are started:
     * a server's tools are known only once it runs, so one that is not needed is not run at all. A name
     * the node does not offer is refused, prefixed with {@code namesKey} (where the names came from).
     * An {@code agentswarm.tools} entry for a tool of the node that is not selected is left out; one
     * that names no tool the node could offer is refused as {@link #nodeTools} refuses it.
     */
    public static ToolRegistry selectTools(Config config, List<String> names, String namesKey) {
        ToolRegistry own = ownTools(config);
        McpSettings mcp = McpSettings.fromConfig(config);
        List<McpSettings.Server> needed = mcp.servers().stream()
                .filter(s -> names.stream().anyMatch(n -> own.find(n).isEmpty() && mayOffer(s, n))).toList();
        ToolRegistry offered = withMcp(own, mcpServers(new McpSettings(needed)));
        ToolRegistry chosen;
        try {
            chosen = offered.select(names);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(namesKey + ": " + e.getMessage(), e);
        }
        Config idempotency = config.getConfig("agentswarm.tools");
        for (String name : idempotency.root().keySet()) {
            if (chosen.find(name).isPresent()) continue;
            if (own.find(name).isEmpty() && mcp.servers().stream().noneMatch(s -> mayOffer(s, name))) {
                throw new IllegalArgumentException(ConfigUtil.joinPath("agentswarm", "tools", name)
                        + " names no tool of this node or of its MCP servers' prefixes; it offers " + own.names().stream().sorted().toList()
                        + (mcp.servers().isEmpty() ? "" : " and its MCP servers' tools"));
            }
            idempotency = idempotency.root().withoutKey(name).toConfig();
        }
        return chosen.withIdempotency(idempotency);
    }

    /** Whether MCP server {@code server} could offer a tool named {@code name}, judged from its settings alone. */
    private static boolean mayOffer(McpSettings.Server server, String name) {
        return name.startsWith(server.prefix()) && server.allows(name.substring(server.prefix().length()));
    }

    /** The tools of the node itself: the built-ins and the sandbox's code tools. */
    public static ToolRegistry ownTools(Config config) {
        ToolRegistry tools = builtInTools();
        for (Tool t : SandboxPool.fromConfig(config).tools()) tools = tools.plus(t);
        return tools;
    }

    /**
     * The node's tools, then each suite tool whose name they do not already offer, then its MCP
     * servers' tools; each with its idempotency as {@code agentswarm.tools.NAME.idempotent} overrides it.
     */
    public static ToolRegistry nodeTools(Config config, dev.agentswarm.environments.Suites suites) {
        return nodeTools(config, suites, mcpServers(config));
    }

    /** As {@link #nodeTools(Config, dev.agentswarm.environments.Suites)}, with these MCP servers. */
    public static ToolRegistry nodeTools(Config config, dev.agentswarm.environments.Suites suites, McpServers mcp) {
        ToolRegistry tools = ownTools(config);
        for (Tool t : suites.tools()) if (tools.find(t.name()).isEmpty()) tools = tools.plus(t);
        return withMcp(tools, mcp).withIdempotency(config.getConfig("agentswarm.tools"));
    }

    /**
     * {@code tools} and the MCP servers' tools after them; an MCP tool whose name the node already
     * offers is refused, naming the server's prefix to set (an MCP tool never replaces another).
     */
    static ToolRegistry withMcp(ToolRegistry tools, McpServers mcp) {
        for (Tool t : mcp.tools()) {
            if (tools.find(t.name()).isPresent()) {
                String server = mcp.serverOf(t.name()).orElse("?");
                String key = ConfigUtil.joinPath("agentswarm", "mcp", "servers", server);
                throw new IllegalArgumentException(key + ": its tool '" + t.name() + "' has the name of a tool this node already offers;"
                        + " give the server a prefix (" + key + ".prefix, now \"" + mcp.settings(server).map(McpSettings.Server::prefix).orElse("")
                        + "\")");
            }
            tools = tools.plus(t);
        }
        return tools;
    }

    /** Servers started per configuration, for the life of the JVM: every registry of the same servers shares their processes. */
    private static final Map<McpSettings, McpServers> MCP = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The MCP servers of this configuration ({@code agentswarm.mcp}): started (and their tools listed)
     * on first use, then shared by every node and registry of this JVM with the same servers, and
     * stopped with their children when the JVM exits. Calls and restarts are recorded on
     * {@link #MCP_METRICS}.
     */
    public static McpServers mcpServers(Config config) {
        return mcpServers(McpSettings.fromConfig(config));
    }

    /** The same, for these servers. */
    static McpServers mcpServers(McpSettings settings) {
        if (settings.servers().isEmpty()) return McpServers.none();
        return MCP.computeIfAbsent(settings, s -> McpServers.start(s, MCP_METRICS));
    }

    /**
     * Where the MCP servers of {@link #mcpServers} record their calls and restarts: the servers are the
     * JVM's, so this composite passes their meters on to the registry of every worker node running in it
     * ({@link SwarmNode} adds its own while it runs); with none, meters count in memory only.
     */
    public static final io.micrometer.core.instrument.composite.CompositeMeterRegistry MCP_METRICS =
            new io.micrometer.core.instrument.composite.CompositeMeterRegistry();

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
