package dev.agentswarm.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.serve.ApiKeys;
import dev.agentswarm.app.serve.ServeAccess;
import dev.agentswarm.app.serve.ServingNode;
import dev.agentswarm.app.serve.SwarmChat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serves the embedded model over the OpenAI API (GET /v1/models, POST /v1/chat/completions, streamed or not,",
                "with tools, log-probs and vLLM's token-id fields), on the node's policy server with continuous batching.",
                "With --swarm, the model \"swarm\" runs a whole swarm on the last user message of a request.",
                "With --api-key (or SWARM_API_KEY), every request but /alive and /ready needs \"Authorization: Bearer KEY\";",
                "without one, only a loopback --host is accepted (--insecure overrides, and says so).",
                "Stops on SIGTERM or Ctrl-C, letting requests in flight finish."})
public final class ServeCommand implements Callable<Integer> {

    @Mixin
    WeightsOptions weights;

    @Option(names = "--preset", paramLabel = "NAME", description = "The project's own model preset: tiny, small or base (default: the configured one).")
    String preset;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "Port to listen on (default ${DEFAULT-VALUE}; 0 picks a free one and prints it).")
    int port;

    @Option(names = "--served-model-name", paramLabel = "NAME",
            description = "The model id clients ask for (default: the --model folder's name, the --weights file's, or the preset's).")
    String servedName;

    @Option(names = "--swarm", description = "Also serve the model \"swarm\": each request runs a swarm on the node; the answer's run folder is in the x-agentswarm-trace header.")
    boolean swarm;

    @Option(names = "--runs-dir", paramLabel = "DIR", defaultValue = "runs",
            description = "Where each swarm request's run folder goes (default ${DEFAULT-VALUE}).")
    Path runsDir;

    @Option(names = "--max-batch", paramLabel = "N", description = "Sequences decoded together (agentswarm.policy.embedded.server.max-batch).")
    Integer maxBatch;

    @Option(names = "--max-queued", paramLabel = "N",
            description = "Requests waiting beyond a full batch before new ones get HTTP 429 (agentswarm.policy.embedded.server.max-queued).")
    Integer maxQueued;

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the node's settings.")
    Path config;

    @Option(names = "--api-key", paramLabel = "KEY",
            description = {"A key clients must send as \"Authorization: Bearer KEY\" (repeatable: any of them is accepted), also",
                    "read from the SWARM_API_KEY environment variable, which keeps it out of the process list."})
    List<String> apiKeys = new ArrayList<>();

    @Option(names = "--metrics-open", description = "Serve /metrics without the key (a Prometheus that sends none); /alive and /ready always are.")
    boolean metricsOpen;

    @Option(names = "--insecure", description = "Allow a non-loopback --host without an API key: anyone who reaches the port may run the model (and swarms).")
    boolean insecure;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be in 0..65535, got " + port);
        if (host.isBlank()) throw new IllegalArgumentException("--host must name an address, e.g. 127.0.0.1");
        if (servedName != null && (servedName.isBlank() || servedName.equals(SwarmChat.MODEL))) {
            throw new IllegalArgumentException("--served-model-name must be a non-empty name other than \"" + SwarmChat.MODEL + "\"");
        }
        ServeAccess access = access(System.getenv("SWARM_API_KEY"));
        if (access.warns()) System.err.println("WARNING: " + ServeAccess.INSECURE_WARNING);
        Config cfg = settings(SwarmNode.loadConfig(config));
        // ServingNode checks the host before anything starts: a refused start is quick, before the model loads.
        String id = servedName != null ? servedName : modelId(cfg);
        ServingNode serving = ServingNode.start(cfg, id, swarm, runsDir, host, port, access, UnaryOperator.identity());
        System.out.println("serving " + String.join(", ", serving.routes().modelIds()) + " at " + serving.baseUrl()
                + " (OpenAI API; Ctrl-C stops)");
        System.out.flush();
        // The JVM's shutdown hook runs the node's coordinated shutdown: the binding stops taking requests first.
        serving.node().system().getWhenTerminated().toCompletableFuture().join();
        return 0;
    }

    /** The keys of --api-key and of {@code envKey} (SWARM_API_KEY; null or empty: none). */
    ServeAccess access(String envKey) {
        List<String> keys = new ArrayList<>(apiKeys);
        if (envKey != null && !envKey.isEmpty()) keys.add(envKey);
        return new ServeAccess(ApiKeys.of(keys), metricsOpen, insecure);
    }

    Config settings(Config base) {
        Config c = weights.apply(base);
        if (preset != null) {
            if (weights.model != null) throw new IllegalArgumentException("--preset names one of the project's own models; --model is a folder");
            c = c.withValue("agentswarm.policy.embedded.model.preset", ConfigValueFactory.fromAnyRef(preset));
        }
        if (maxBatch != null) {
            if (maxBatch <= 0) throw new IllegalArgumentException("--max-batch must be > 0, got " + maxBatch);
            c = c.withValue("agentswarm.policy.embedded.server.max-batch", ConfigValueFactory.fromAnyRef(maxBatch));
        }
        if (maxQueued != null) {
            if (maxQueued < 0) throw new IllegalArgumentException("--max-queued must be >= 0, got " + maxQueued);
            c = c.withValue("agentswarm.policy.embedded.server.max-queued", ConfigValueFactory.fromAnyRef(maxQueued));
        }
        return c;
    }

    /** The model folder's name, the weights file's, or the preset's. */
    static String modelId(Config cfg) {
        String base = "agentswarm.policy.embedded.";
        if (cfg.hasPath(base + "model-dir") && !cfg.getString(base + "model-dir").isBlank()) {
            Path dir = Path.of(cfg.getString(base + "model-dir")).toAbsolutePath().normalize();
            return dir.getFileName() == null ? dir.toString() : dir.getFileName().toString();
        }
        if (cfg.hasPath(base + "weights") && !cfg.getString(base + "weights").isBlank()) {
            String file = Path.of(cfg.getString(base + "weights")).getFileName().toString();
            return file.endsWith(".safetensors") ? file.substring(0, file.length() - ".safetensors".length()) : file;
        }
        return cfg.getString(base + "model.preset");
    }
}
