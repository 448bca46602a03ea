package dev.agentswarm.app.serve;

import com.typesafe.config.Config;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.metrics.NodeEndpoints;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.http.javadsl.server.Directives;
import org.apache.pekko.http.javadsl.server.Route;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.workers.EmbeddedPolicy;
import dev.agentswarm.workers.EpisodeServices;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import dev.agentswarm.core.policy.Policy;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.ServerBinding;

/**
 * A node that serves the OpenAI API: the embedded model on the node's policy server (the same one the
 * node's episodes ask), optionally the model {@value SwarmChat#MODEL} running swarms on the node, and
 * the HTTP binding. {@link #close} unbinds and stops the node.
 */
public final class ServingNode implements AutoCloseable {

    private final SwarmNode node;
    private final OpenAiRoutes routes;
    private final ServerBinding binding;
    private final EmbeddedPolicy policy;
    private final ToolRegistry tools;

    private ServingNode(SwarmNode node, OpenAiRoutes routes, ServerBinding binding, EmbeddedPolicy policy, ToolRegistry tools) {
        this.node = node;
        this.routes = routes;
        this.binding = binding;
        this.policy = policy;
        this.tools = tools;
    }

    /**
     * Starts a node on {@code config} (the embedded model as {@code agentswarm.policy.embedded} says),
     * serving it as {@code modelId}, and swarms when {@code swarms} (their run folders under
     * {@code runsRoot}), at {@code host:port} (0: a free port), without a key: {@code host} must be a
     * loopback address.
     */
    public static ServingNode start(Config config, String modelId, boolean swarms, Path runsRoot, String host, int port)
            throws Exception {
        return start(config, modelId, swarms, runsRoot, host, port, ServeAccess.loopbackOnly(), UnaryOperator.identity());
    }

    /** The same, the node's episodes (a swarm's agents) asking {@code episodes} of the embedded policy (tests script them). */
    public static ServingNode start(Config config, String modelId, boolean swarms, Path runsRoot, String host, int port,
                                    UnaryOperator<Policy> episodes) throws Exception {
        return start(config, modelId, swarms, runsRoot, host, port, ServeAccess.loopbackOnly(), episodes);
    }

    /** The same, admitting whom {@code access} admits; a host it refuses is refused before anything starts. */
    public static ServingNode start(Config config, String modelId, boolean swarms, Path runsRoot, String host, int port,
                                    ServeAccess access, UnaryOperator<Policy> episodes) throws Exception {
        access.checkHost(host);
        ServeSettings serve = ServeSettings.fromConfig(config);
        AtomicReference<EmbeddedPolicy> spawned = new AtomicReference<>();
        ToolRegistry tools = swarms ? swarmTools(config) : EpisodeRuns.builtInTools();
        // The node's /metrics, /alive and /ready answer on the API's port too; exposed from the node's start, so no count is missed.
        Config nodeConfig = ConfigFactory.parseString("agentswarm.http.on-api = on").withFallback(config);
        SwarmNode node = SwarmNode.start(nodeConfig, system -> {
            EmbeddedPolicy p = EmbeddedPolicy.spawn(system, config);
            spawned.set(p);
            return new EpisodeServices(episodes.apply(p), tools);
        }, null);
        try {
            EmbeddedPolicy policy = spawned.get();
            SwarmChat swarm = null;
            if (swarms) {
                Set<String> subAgentTools = new TreeSet<>(tools.names());
                swarm = new SwarmChat(node, SwarmSettings.fromConfig(config, subAgentTools), runsRoot,
                        node.system().dispatchers().lookup(DispatcherSelector.blocking()), serve);
            }
            OpenAiRoutes routes = new OpenAiRoutes(List.of(PolicyServerModel.of(modelId, policy, node.system())), swarm, serve);
            Route all = access.route(routes.route(), NodeEndpoints.of(node.system(), access.warning()).route());
            ServerBinding binding = OpenAiServer.bind(node.system(), host, port, all, serve.idleTimeout())
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            return new ServingNode(node, routes, binding, policy, tools);
        } catch (Exception | Error e) {
            node.close();
            throw e;
        }
    }

    /**
     * The tools of a served swarm's agents: the built-in ones, and those of the node's that
     * {@code agentswarm.serve.swarm.tools} names. Whoever may call the API chooses the swarm's task, so
     * code in the sandbox and MCP tools (which run outside it) are the operator's to grant; an MCP
     * server none of whose tools is granted is never started. A name the node does not offer is
     * refused, naming those it does.
     */
    static ToolRegistry swarmTools(Config config) {
        List<String> names = new ArrayList<>(EpisodeRuns.builtInTools().names());
        for (String a : ServeSettings.fromConfig(config).swarmTools()) if (!names.contains(a)) names.add(a);
        return EpisodeRuns.selectTools(config, names, "agentswarm.serve.swarm.tools");
    }

    public SwarmNode node() {
        return node;
    }

    public OpenAiRoutes routes() {
        return routes;
    }

    public EmbeddedPolicy policy() {
        return policy;
    }

    /** The tools the node's episodes (a served swarm's agents) may call. */
    public Set<String> tools() {
        return new TreeSet<>(tools.names());
    }

    public InetSocketAddress address() {
        return binding.localAddress();
    }

    /** {@code http://host:port/v1}: what clients take as their base URL. */
    public String baseUrl() {
        InetSocketAddress a = address();
        return "http://" + a.getHostString() + ":" + a.getPort() + "/v1";
    }

    @Override
    public void close() {
        try {
            binding.terminate(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the node's shutdown unbinds it anyway
        } finally {
            node.close();
        }
    }
}
