package dev.agentswarm.app.metrics;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.optionalHeaderValueByName;
import static org.apache.pekko.http.javadsl.server.Directives.path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * A node's operational endpoints as one Pekko HTTP {@link Route}, to serve on its own
 * ({@link NodeHttpServer}) or beside another server's routes:
 * <ul>
 *   <li>{@code GET /metrics}: every meter of the node in the Prometheus text format 0.0.4, or
 *       OpenMetrics 1.0 when the {@code Accept} header asks for {@code application/openmetrics-text};</li>
 *   <li>{@code GET /alive}: 200 while the node's actor system runs (an orchestrator's liveness probe);</li>
 *   <li>{@code GET /ready}: 200 when the node takes work ({@link NodeReadiness}), else 503 with a JSON
 *       body naming each check that is not ready and what it waits for; either body carries the
 *       node's {@code warning} when it has one (a server open to anyone says so to whoever watches it).</li>
 * </ul>
 */
public final class NodeEndpoints {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ActorSystem<?> system;
    private final PrometheusExposition exposition;
    private final NodeReadiness readiness;
    private final Optional<String> warning;

    private NodeEndpoints(ActorSystem<?> system, Optional<String> warning) {
        this.system = system;
        this.exposition = PrometheusExposition.of(system);
        this.readiness = NodeReadiness.get(system);
        this.warning = warning;
    }

    /** The endpoints of the node of {@code system}; its meters are exposed from now on. */
    public static NodeEndpoints of(ActorSystem<?> system) {
        return of(system, Optional.empty());
    }

    /** The same, {@code /ready} saying {@code warning} when there is one. */
    public static NodeEndpoints of(ActorSystem<?> system, Optional<String> warning) {
        return new NodeEndpoints(system, warning);
    }

    public Route route() {
        return concat(
                path("metrics", () -> get(() -> optionalHeaderValueByName("Accept", accept -> complete(metrics(accept.orElse(null)))))),
                path("alive", () -> get(() -> complete(alive()))),
                path("ready", () -> get(() -> complete(ready()))));
    }

    HttpResponse metrics(String accept) {
        String type = PrometheusExposition.contentType(accept);
        return HttpResponse.create().withEntity(ContentTypes.parse(type), exposition.scrape(type).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse alive() {
        // Answered by the node's own actor system: if it answers, the system runs; once it terminates, so does the server.
        return json(200, JSON.createObjectNode().put("status", "alive").put("node", system.address().toString())
                .put("uptime_s", system.uptime()));
    }

    HttpResponse ready() {
        NodeReadiness.Status s = readiness.status();
        ObjectNode body = JSON.createObjectNode().put("status", s.ready() ? "ready" : "not ready").put("node", system.address().toString());
        if (s.ready()) {
            body.putArray("checks").addAll(s.checks().stream().map(body::textNode).toList());
        } else {
            ObjectNode waiting = body.putObject("waiting");
            for (Map.Entry<String, String> e : s.waiting().entrySet()) waiting.put(e.getKey(), e.getValue());
        }
        warning.ifPresent(w -> body.put("warning", w));
        return json(s.ready() ? 200 : 503, body);
    }

    private static HttpResponse json(int status, ObjectNode body) {
        return HttpResponse.create().withStatus(StatusCodes.get(status))
                .withEntity(ContentTypes.APPLICATION_JSON, (body.toString() + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
