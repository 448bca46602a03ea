package dev.agentswarm.app.metrics;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Serves a {@link Route} on a node's actor system, bound to its life: the node reads as not ready
 * from the first phase of its coordinated shutdown (before it leaves the cluster), and the server
 * keeps answering {@code /metrics} and {@code /ready} through the leave (the workers' hand-off
 * drain) and unbinds only just before the actor system terminates.
 */
public final class NodeHttpServer {

    private final ServerBinding binding;

    private NodeHttpServer(ServerBinding binding) {
        this.binding = binding;
    }

    /** Starts the node's endpoints ({@link NodeEndpoints}) when {@code agentswarm.http.port} is set; empty when it is off. */
    public static Optional<NodeHttpServer> startIfEnabled(ActorSystem<?> system) {
        HttpSettings settings = HttpSettings.fromConfig(system.settings().config());
        if (!settings.enabled()) return Optional.empty();
        return Optional.of(start(system, NodeEndpoints.of(system).route(), settings));
    }

    /**
     * Binds {@code route} at the settings' host and port, waiting for the bind; a port in use or an
     * address that cannot be bound fails with the config keys to change.
     */
    public static NodeHttpServer start(ActorSystem<?> system, Route route, HttpSettings settings) {
        int port = settings.port().orElseThrow(() -> new IllegalArgumentException(HttpSettings.PORT + " is off"));
        CompletableFuture<ServerBinding> bound = Http.get(system).newServerAt(settings.host(), port).bind(route).toCompletableFuture();
        ServerBinding binding;
        try {
            binding = bound.get(settings.bindTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalArgumentException("cannot serve the node's endpoints at " + settings.host() + ":" + port + " ("
                    + HttpSettings.HOST + ", " + HttpSettings.PORT + "): " + cause.getMessage()
                    + (port != 0 ? "; is the port in use? pick another, or 0 for a free one" : ""), cause);
        } catch (TimeoutException e) {
            throw new IllegalArgumentException("binding " + settings.host() + ":" + port + " (" + HttpSettings.PORT + ") took over "
                    + settings.bindTimeout(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding the node's endpoints", e);
        }
        NodeHttpServer server = new NodeHttpServer(binding);
        NodeReadiness.get(system); // its shutdown hook turns /ready to 503 in the first phase
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "http-endpoints-unbind",
                () -> binding.terminate(Duration.ofSeconds(1)).thenApply(t -> Done.getInstance()));
        return server;
    }

    /** Where the endpoints are served (the port picked when {@code agentswarm.http.port = 0}). */
    public InetSocketAddress address() {
        return binding.localAddress();
    }

    /** The URL of {@code path} on this server, e.g. {@code url("/metrics")}. */
    public String url(String path) {
        InetSocketAddress a = address();
        String host = a.getAddress() != null && a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getHostString();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + path;
    }
}
