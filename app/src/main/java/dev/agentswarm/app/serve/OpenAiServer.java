package dev.agentswarm.app.serve;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.Route;
import scala.concurrent.duration.FiniteDuration;

/**
 * Binds routes on the node's actor system. The binding is unbound with the system's coordinated
 * shutdown (SIGTERM, Ctrl-C), which lets requests in flight finish first.
 */
public final class OpenAiServer {

    private OpenAiServer() {}

    /** Binds {@code route} at {@code host:port} (port 0: a free one; the binding's address says which). */
    public static CompletionStage<ServerBinding> bind(ActorSystem<?> system, String host, int port, Route route) {
        return Http.get(system).newServerAt(host, port).bind(route)
                .thenApply(b -> b.addToCoordinatedShutdown(Duration.ofSeconds(10), system));
    }

    /**
     * The same, a connection with no byte either way for {@code idleTimeout} closed (the node's other
     * HTTP servers keep {@code pekko.http.server.idle-timeout}).
     */
    public static CompletionStage<ServerBinding> bind(ActorSystem<?> system, String host, int port, Route route, Duration idleTimeout) {
        return Http.get(system).newServerAt(host, port)
                .adaptSettings(s -> s.withTimeouts(s.getTimeouts().withIdleTimeout(FiniteDuration.fromNanos(idleTimeout.toNanos()))))
                .bind(route)
                .thenApply(b -> b.addToCoordinatedShutdown(Duration.ofSeconds(10), system));
    }
}
