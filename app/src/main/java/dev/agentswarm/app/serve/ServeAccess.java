package dev.agentswarm.app.serve;

import dev.agentswarm.app.LoopbackHost;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Who may use a served API. With keys, every route needs one as a Bearer token except {@code /alive}
 * and {@code /ready} (probes carry no secrets) and, when {@code metricsOpen}, {@code /metrics}. Without
 * keys the server only listens on the loopback unless {@code insecure}, which {@code /ready}'s body
 * then says, so that whoever watches the node sees it.
 */
public final class ServeAccess extends AllDirectives {

    public static final String INSECURE_WARNING = "this server takes requests without an API key on a non-loopback address"
            + " (--insecure): anyone who reaches its port can use it";

    private final ApiKeys keys;
    private final boolean metricsOpen;
    private final boolean insecure;

    public ServeAccess(ApiKeys keys, boolean metricsOpen, boolean insecure) {
        this.keys = keys;
        this.metricsOpen = metricsOpen;
        this.insecure = insecure;
    }

    /** No key; the server may only listen on the loopback. */
    public static ServeAccess loopbackOnly() {
        return new ServeAccess(ApiKeys.none(), false, false);
    }

    /**
     * Refuses a {@code host} that other machines can reach when no key is set, unless insecure; whether
     * it is a loopback one is judged from its text ({@link LoopbackHost}).
     */
    public void checkHost(String host) {
        if (keys.required() || insecure || LoopbackHost.is(host)) return;
        throw new IllegalArgumentException("--host " + host + " takes requests from other machines, and no API key is set:"
                + " give one with --api-key KEY or the SWARM_API_KEY environment variable (clients send it as"
                + " \"Authorization: Bearer KEY\"), or --insecure to serve anyone who can reach the port");
    }

    /** Whether anyone may use the API from anywhere: said at start and in {@code /ready}. */
    public boolean warns() {
        return insecure && !keys.required();
    }

    /** What {@code /ready} says when {@link #warns}: the node's endpoints ({@code NodeEndpoints.of}) put it in the body. */
    public Optional<String> warning() {
        return warns() ? Optional.of(INSECURE_WARNING) : Optional.empty();
    }

    /**
     * {@code api} and the node's {@code endpoints} (/metrics, /alive, /ready) behind the keys; the
     * endpoints are made with {@link #warning} so that {@code /ready} says it.
     */
    public Route route(Route api, Route endpoints) {
        return extractUnmatchedPath(path -> {
            if (path.equals("/alive") || path.equals("/ready")) return endpoints;
            if (path.equals("/metrics") && metricsOpen) return endpoints;
            return authorized(() -> concat(api, endpoints));
        });
    }

    private Route authorized(Supplier<Route> inner) {
        if (!keys.required()) return inner.get();
        return optionalHeaderValueByName("Authorization", h -> keys.accepts(h.orElse(null)) ? inner.get() : complete(unauthorized()));
    }

    static HttpResponse unauthorized() {
        ApiError e = new ApiError(401, "invalid_request_error", "a missing or wrong API key: send it as \"Authorization: Bearer"
                + " <key>\" (the OpenAI clients' api_key)", null, "invalid_api_key");
        return OpenAiRoutes.json(401, e.body()).addHeader(RawHeader.create("WWW-Authenticate", "Bearer"));
    }
}
