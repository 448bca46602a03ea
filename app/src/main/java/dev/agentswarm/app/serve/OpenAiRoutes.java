package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.TopLogprobs;
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
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.QueueOfferResult;

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

    /** Events a stream may hold for a slow client: more than any one completion's tokens. */
    private static final int STREAM_BUFFER = 65_536;

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
                        extractMaterializer(materializer -> entity(Unmarshaller.entityToString(),
                                body -> completeWithFuture(chat(body, materializer))))))));
    }

    /** Never fails: every error is a response in the OpenAI shape. */
    CompletionStage<HttpResponse> chat(String body, Materializer materializer) {
        CompletionStage<HttpResponse> response;
        try {
            ChatRequest request = ChatRequest.parse(body);
            if (swarm != null && request.model().equals(SwarmChat.MODEL)) {
                response = swarm(request);
            } else {
                ServedModel model = models.get(request.model());
                if (model == null) throw ApiError.unknownModel(request.model(), served());
                response = generate(model, request, materializer);
            }
        } catch (ApiError e) {
            return CompletableFuture.completedFuture(error(e));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(error(ApiError.internal(e.toString())));
        }
        return response.exceptionally(OpenAiRoutes::error);
    }

    private CompletionStage<HttpResponse> generate(ServedModel model, ChatRequest request, Materializer materializer) {
        int[] prompt;
        try {
            prompt = model.prompt(request.messages(), request.offeredTools());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("messages", "cannot render the conversation with the model's chat template: " + e.getMessage());
        }
        String id = ChatResponses.newCompletionId();
        long now = System.currentTimeMillis() / 1000;
        if (request.stream()) return stream(model, request, prompt, id, now, materializer);
        List<CompletableFuture<Generation>> runs = new ArrayList<>();
        List<Runnable> cancels = new ArrayList<>();
        for (int i = 0; i < request.n(); i++) {
            CompletableFuture<Generation> run = new CompletableFuture<>();
            runs.add(run);
            cancels.add(model.generate(prompt, request.sampling(i, Integer.MAX_VALUE), false, request.topLogprobs(), new ServedModel.Listener() {
                @Override
                public void tokens(int[] ids, float[] logprobs, TopLogprobs top) {}

                @Override
                public void done(Generation generation) {
                    run.complete(generation);
                }

                @Override
                public void failed(ApiError error) {
                    run.completeExceptionally(error);
                }
            }));
        }
        // One refused choice fails the request: the others stop generating.
        runs.forEach(r -> r.whenComplete((g, e) -> {
            if (e != null) cancels.forEach(Runnable::run);
        }));
        return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<ChatResponses.Choice> choices = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) choices.add(ChatResponses.choice(i, runs.get(i).join(), request));
            return json(200, ChatResponses.completion(id, now, model.id(), request, prompt, choices, model));
        });
    }

    /**
     * A streamed answer: the response starts once every choice has been accepted by the policy server
     * (so a full queue is still a 429, not an error inside a 200 stream); tokens then flow as the
     * server's decode steps produce them. A client that goes away stops its generations.
     */
    private CompletionStage<HttpResponse> stream(ServedModel model, ChatRequest request, int[] prompt, String id, long now,
                                                 Materializer materializer) {
        ChatStream chat = new ChatStream(id, now, model.id(), request, prompt, model);
        Pair<BoundedSourceQueue<String>, Source<String, NotUsed>> materialized =
                Source.<String>queue(STREAM_BUFFER).preMaterialize(materializer);
        BoundedSourceQueue<String> queue = materialized.first();
        List<Runnable> cancels = new ArrayList<>();
        CompletableFuture<HttpResponse> response = new CompletableFuture<>();
        boolean[] begun = new boolean[request.n()];
        int[] begunCount = {0};
        Runnable cancelAll = () -> {
            synchronized (cancels) {
                cancels.forEach(Runnable::run);
            }
        };
        Source<ByteString, NotUsed> body = materialized.second().map(ByteString::fromString)
                .watchTermination((mat, done) -> {
                    Stages.direct(done).whenComplete((d, e) -> cancelAll.run());
                    return mat;
                });
        synchronized (chat) {
            chat.open().forEach(queue::offer);
        }
        for (int i = 0; i < request.n(); i++) {
            int index = i;
            Runnable cancel = model.generate(prompt, request.sampling(i, Integer.MAX_VALUE), true, request.topLogprobs(), new ServedModel.Listener() {
                @Override
                public void tokens(int[] ids, float[] logprobs, TopLogprobs top) {
                    synchronized (chat) {
                        begin(index);
                        push(chat.tokens(index, ids, logprobs, top));
                    }
                }

                @Override
                public void done(Generation generation) {
                    synchronized (chat) {
                        begin(index);
                        push(chat.done(index, generation));
                        if (chat.complete()) queue.complete();
                    }
                }

                @Override
                public void failed(ApiError error) {
                    synchronized (chat) {
                        if (!response.isDone()) {
                            response.complete(error(error));
                        } else if (!chat.complete()) {
                            push(chat.failed(error));
                            queue.complete();
                        }
                    }
                    cancelAll.run();
                }

                private void begin(int index) {
                    if (!begun[index]) {
                        begun[index] = true;
                        if (++begunCount[0] == begun.length) response.complete(sse(body));
                    }
                }

                private void push(List<String> events) {
                    for (String e : events) {
                        if (queue.offer(e) != QueueOfferResult.enqueued()) {
                            // The client reads too slowly for the buffer: end its stream rather than lose tokens silently.
                            queue.fail(new IllegalStateException("stream buffer of " + STREAM_BUFFER + " events overflowed"));
                            cancelAll.run();
                            return;
                        }
                    }
                }
            });
            synchronized (cancels) {
                cancels.add(cancel);
            }
        }
        return response;
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
        return sse(Source.from(events).map(ByteString::fromString));
    }

    static HttpResponse sse(Source<ByteString, ?> source) {
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
