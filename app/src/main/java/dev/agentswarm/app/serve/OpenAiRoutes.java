package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The OpenAI API's {@code GET /v1/models}, {@code GET /v1/models/{id}} and
 * {@code POST /v1/chat/completions} as a Pekko HTTP {@link Route}, to bind alone
 * ({@link OpenAiServer}) or beside other routes. Requests never block a Pekko thread: each one is a
 * future of the node's policy server (or of a swarm) mapped to its response. Errors have the OpenAI
 * shape: 400 naming the field, 404 for an unknown model, 429 when the policy server's queue is full.
 */
public final class OpenAiRoutes extends AllDirectives {

    /** The response header that names a {@value SwarmChat#MODEL} answer's run folder. */
    public static final String TRACE_HEADER = "x-agentswarm-trace";

    private static final ContentType EVENT_STREAM = ContentTypes.create(MediaTypes.TEXT_EVENT_STREAM);

    private final Map<String, ServedModel> models = new LinkedHashMap<>();
    private final SwarmChat swarm;
    private final long created = System.currentTimeMillis() / 1000;

    /** @param swarm answers the model {@value SwarmChat#MODEL}; null when swarms are not served */
    public OpenAiRoutes(List<ServedModel> served, SwarmChat swarm) {
        for (ServedModel m : served) models.put(m.id(), m);
        this.swarm = swarm;
    }

    /** The ids clients may put in {@code model}. */
    public List<String> modelIds() {
        List<String> ids = new ArrayList<>(models.keySet());
        if (swarm != null) ids.add(SwarmChat.MODEL);
        return ids;
    }

    public Route route() {
        return pathPrefix("v1", () -> concat(
                path("models", () -> get(() -> complete(json(200, modelList())))),
                path(PathMatchers.segment("models").slash(PathMatchers.remaining()), id -> get(() -> {
                    if (!modelIds().contains(id)) return complete(error(ApiError.unknownModel(id, served())));
                    return complete(json(200, modelEntry(id)));
                })),
                path(PathMatchers.segment("chat").slash("completions"), () -> post(() ->
                        entity(Unmarshaller.entityToString(), body -> completeWithFuture(chat(body)))))));
    }

    /** Never fails: every error is a response in the OpenAI shape. */
    CompletionStage<HttpResponse> chat(String body) {
        CompletionStage<HttpResponse> response;
        try {
            ChatRequest request = ChatRequest.parse(body);
            if (swarm != null && request.model().equals(SwarmChat.MODEL)) {
                response = swarm(request);
            } else {
                ServedModel model = models.get(request.model());
                if (model == null) throw ApiError.unknownModel(request.model(), served());
                response = generate(model, request);
            }
        } catch (ApiError e) {
            return CompletableFuture.completedFuture(error(e));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(error(ApiError.internal(e.toString())));
        }
        return response.exceptionally(OpenAiRoutes::error);
    }

    private CompletionStage<HttpResponse> generate(ServedModel model, ChatRequest request) {
        int[] prompt;
        try {
            prompt = model.prompt(request.messages(), request.offeredTools());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("messages", "cannot render the conversation with the model's chat template: " + e.getMessage());
        }
        List<CompletableFuture<Generation>> runs = new ArrayList<>();
        for (int i = 0; i < request.n(); i++) {
            runs.add(model.generate(prompt, request.sampling(i, Integer.MAX_VALUE)).toCompletableFuture());
        }
        String id = ChatResponses.newCompletionId();
        long now = System.currentTimeMillis() / 1000;
        return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<ChatResponses.Choice> choices = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) choices.add(ChatResponses.choice(i, runs.get(i).join(), request));
            if (request.stream()) return stream(ChatResponses.events(id, now, model.id(), request, prompt, choices, model));
            return json(200, ChatResponses.completion(id, now, model.id(), request, prompt, choices, model));
        });
    }

    private CompletionStage<HttpResponse> swarm(ChatRequest request) {
        String task = request.lastUserMessage();
        if (task == null || task.isBlank()) {
            throw ApiError.invalid("messages", "the model \"" + SwarmChat.MODEL + "\" runs a swarm on the last user message:"
                    + " the request has no user message with text");
        }
        if (request.n() != 1) throw ApiError.invalid("n", "the model \"" + SwarmChat.MODEL + "\" answers with one swarm: n must be 1");
        return swarm.run(task).thenApply(answer -> {
            SwarmResult r = answer.result();
            String trace = answer.runDir().toString();
            if (!r.answered()) {
                ApiError e = ApiError.internal("the swarm ended without an answer (" + r.stopReason()
                        + (r.error() == null ? "" : ": " + r.error()) + "); its trace is in " + trace);
                return error(e).addHeader(RawHeader.create(TRACE_HEADER, trace));
            }
            String id = ChatResponses.newCompletionId();
            long now = System.currentTimeMillis() / 1000;
            HttpResponse response = request.stream()
                    ? stream(SwarmAnswers.events(id, now, r, request))
                    : json(200, SwarmAnswers.completion(id, now, r));
            return response.addHeader(RawHeader.create(TRACE_HEADER, trace));
        });
    }

    private ObjectNode modelList() {
        ObjectNode root = Json.object();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (String id : modelIds()) data.add(modelEntry(id));
        return root;
    }

    private ObjectNode modelEntry(String id) {
        ObjectNode m = Json.object();
        m.put("id", id);
        m.put("object", "model");
        m.put("created", created);
        m.put("owned_by", "agentswarm");
        return m;
    }

    private String served() {
        return String.join(", ", modelIds().stream().map(m -> "`" + m + "`").toList());
    }

    static HttpResponse json(int status, ObjectNode body) {
        return HttpResponse.create().withStatus(status)
                .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, Json.write(body).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    static HttpResponse stream(List<String> events) {
        Source<ByteString, ?> source = Source.from(events).map(ByteString::fromString);
        return HttpResponse.create().withStatus(StatusCodes.OK)
                .addHeader(RawHeader.create("Cache-Control", "no-cache"))
                .withEntity(HttpEntities.createChunked(EVENT_STREAM, source));
    }

    static HttpResponse error(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) c = c.getCause();
        ApiError e = c instanceof ApiError a ? a : ApiError.internal(c.toString());
        HttpResponse r = json(e.status(), e.body());
        return e.status() == 429 ? r.addHeader(RawHeader.create("Retry-After", "1")) : r;
    }

}
