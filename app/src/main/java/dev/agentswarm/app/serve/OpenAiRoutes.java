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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
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
import scala.concurrent.duration.FiniteDuration;

/**
 * The OpenAI API's {@code GET /v1/models}, {@code GET /v1/models/{id}} and
 * {@code POST /v1/chat/completions} as a Pekko HTTP {@link Route}, to bind alone
 * ({@link OpenAiServer}) or beside other routes. Requests never block a Pekko thread: each one is a
 * future of the node's policy server (or of a swarm) mapped to its response. Errors have the OpenAI
 * shape: 400 naming the field (n past {@code agentswarm.serve.max-n} too), 404 for an unknown model,
 * 429 with Retry-After when the policy server's queue is full or as many swarms run as allowed.
 * Every answer keeps its connection under the binding's short idle timeout, and a stream holds at most
 * {@code agentswarm.serve.stream-buffer} bytes for a slow reader ({@link ServeSettings}). Who may call
 * these routes is {@link ServeAccess}'s to say.
 */
public final class OpenAiRoutes extends AllDirectives {

    /** The response header that names a {@value SwarmChat#MODEL} answer's run folder. */
    public static final String TRACE_HEADER = "x-agentswarm-trace";

    /** Events a stream may hold: a bound the byte cap ({@code agentswarm.serve.stream-buffer}) reaches first. */
    private static final int STREAM_EVENTS = 65_536;

    /** What keeps a quiet stream's connection open: an SSE comment, which clients skip. */
    private static final ByteString KEEP_ALIVE_COMMENT = ByteString.fromString(": keep-alive\n\n");

    /** What keeps a plain answer's connection open before its JSON: whitespace, which JSON parsers skip. */
    private static final ByteString KEEP_ALIVE_SPACE = ByteString.fromString("\n");

    private static final ContentType EVENT_STREAM = ContentTypes.create(MediaTypes.TEXT_EVENT_STREAM);

    private final Map<String, ServedModel> models = new LinkedHashMap<>();
    private final SwarmChat swarm;
    private final ServeSettings settings;
    private final long created = System.currentTimeMillis() / 1000;

    /** With the default bounds of app's reference.conf. */
    public OpenAiRoutes(List<ServedModel> served, SwarmChat swarm) {
        this(served, swarm, ServeSettings.defaults());
    }

    /** @param swarm answers the model {@value SwarmChat#MODEL}; null when swarms are not served */
    public OpenAiRoutes(List<ServedModel> served, SwarmChat swarm, ServeSettings settings) {
        for (ServedModel m : served) models.put(m.id(), m);
        this.swarm = swarm;
        this.settings = settings;
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

    /**
     * A plain (not streamed) answer not ready within the keep-alive interval is sent as a 200 at once,
     * a newline every interval before its JSON, so the binding's short idle timeout does not cut a long
     * generation or swarm. The price: an error found after that (a timed-out generation, a swarm without
     * an answer) comes as the OpenAI error object in a 200; errors found at once (400, 401, 404, 429)
     * keep their status. Streams keep their connection with SSE comments instead. The response carries
     * {@code headers} either way.
     */
    private CompletionStage<HttpResponse> patient(CompletionStage<HttpResponse> answer, Materializer materializer,
                                                  List<HttpHeader> headers) {
        CompletableFuture<HttpResponse> out = new CompletableFuture<>();
        var timer = materializer.scheduleOnce(FiniteDuration.fromNanos(settings.keepAlive().toNanos()), () -> {
            if (out.isDone()) return;
            CompletionStage<HttpResponse> late = answer.exceptionally(OpenAiRoutes::error);
            Source<ByteString, NotUsed> body = Source.completionStage(late)
                    .flatMapConcat(r -> r.entity().getDataBytes())
                    .keepAlive(settings.keepAlive(), () -> KEEP_ALIVE_SPACE);
            HttpResponse started = HttpResponse.create().withStatus(StatusCodes.OK)
                    .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, Source.single(KEEP_ALIVE_SPACE).concat(body)))
                    .addHeaders(headers);
            out.complete(started);
        });
        answer.whenComplete((r, e) -> {
            timer.cancel();
            out.complete((r != null ? r : error(e)).addHeaders(headers));
        });
        return out;
    }

    /** Never fails: every error is a response in the OpenAI shape. */
    CompletionStage<HttpResponse> chat(String body, Materializer materializer) {
        CompletionStage<HttpResponse> response;
        try {
            ChatRequest request = ChatRequest.parse(body);
            if (request.n() > settings.maxN()) {
                throw ApiError.invalid("n", "n must be at most " + settings.maxN() + " on this server (agentswarm.serve.max-n), got "
                        + request.n());
            }
            if (swarm != null && request.model().equals(SwarmChat.MODEL)) {
                response = swarm(request, materializer);
            } else {
                ServedModel model = models.get(request.model());
                if (model == null) throw ApiError.unknownModel(request.model(), served());
                response = generate(model, request, materializer);
                if (!request.stream()) response = patient(response, materializer, List.of());
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
     * (so a full queue is still a 429, not an error inside a 200 stream), or after the keep-alive
     * interval if they wait longer (behind a busy batch: a refusal after that is an error event, as
     * vLLM sends one); tokens then flow as the server's decode steps produce them, SSE comments
     * while none come. A client that goes away stops its generations.
     */
    private CompletionStage<HttpResponse> stream(ServedModel model, ChatRequest request, int[] prompt, String id, long now,
                                                 Materializer materializer) {
        ChatStream chat = new ChatStream(id, now, model.id(), request, prompt, model);
        Pair<BoundedSourceQueue<ByteString>, Source<ByteString, NotUsed>> materialized =
                Source.<ByteString>queue(STREAM_EVENTS).preMaterialize(materializer);
        BoundedSourceQueue<ByteString> queue = materialized.first();
        // Bytes offered and not yet taken by the HTTP layer: what a client that reads slowly makes the server hold.
        AtomicLong held = new AtomicLong();
        List<Runnable> cancels = new ArrayList<>();
        CompletableFuture<HttpResponse> response = new CompletableFuture<>();
        boolean[] begun = new boolean[request.n()];
        int[] begunCount = {0};
        Runnable cancelAll = () -> {
            synchronized (cancels) {
                cancels.forEach(Runnable::run);
            }
        };
        Source<ByteString, NotUsed> body = materialized.second()
                .map(b -> {
                    held.addAndGet(-b.size());
                    return b;
                })
                .watchTermination((mat, done) -> {
                    Stages.direct(done).whenComplete((d, e) -> cancelAll.run());
                    return mat;
                })
                .keepAlive(settings.keepAlive(), () -> KEEP_ALIVE_COMMENT);
        synchronized (chat) {
            for (String e : chat.open()) {
                ByteString b = ByteString.fromString(e);
                held.addAndGet(b.size());
                queue.offer(b);
            }
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
                        ByteString b = ByteString.fromString(e);
                        if (held.addAndGet(b.size()) > settings.streamBufferBytes() || queue.offer(b) != QueueOfferResult.enqueued()) {
                            // The client reads too slowly for the buffer: end its stream rather than lose tokens silently.
                            queue.fail(new IllegalStateException("the stream's buffer of " + settings.streamBufferBytes()
                                    + " bytes (agentswarm.serve.stream-buffer) overflowed: the client reads too slowly"));
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
        // Begun or not, the response starts before the binding's idle timeout could cut it.
        var begin = materializer.scheduleOnce(FiniteDuration.fromNanos(settings.keepAlive().toNanos()), () -> {
            synchronized (chat) {
                if (!response.isDone()) response.complete(sse(body));
            }
        });
        response.whenComplete((r, e) -> begin.cancel());
        return response;
    }

    /**
     * A swarm's answer. Streamed, the response begins at once (SSE comments keep it open while the swarm
     * runs) and the answer, or the error, comes as it ends; the trace header names the run folder either way.
     */
    private CompletionStage<HttpResponse> swarm(ChatRequest request, Materializer materializer) {
        String task = request.lastUserMessage();
        if (task == null || task.isBlank()) {
            throw ApiError.invalid("messages", "the model \"" + SwarmChat.MODEL + "\" runs a swarm on the last user message:"
                    + " the request has no user message with text");
        }
        if (request.n() != 1) throw ApiError.invalid("n", "the model \"" + SwarmChat.MODEL + "\" answers with one swarm: n must be 1");
        SwarmChat.Run run = swarm.run(task);
        String trace = run.runDir().toString();
        RawHeader traceHeader = RawHeader.create(TRACE_HEADER, trace);
        String id = ChatResponses.newCompletionId();
        long now = System.currentTimeMillis() / 1000;
        if (request.stream()) {
            Source<ByteString, NotUsed> events = Source.completionStage(run.result().handle((r, e) -> {
                        ApiError failure = e != null ? asApiError(e) : r.answered() ? null : unanswered(r, trace);
                        return failure == null ? SwarmAnswers.events(id, now, r, request)
                                : List.of("data: " + Json.write(failure.body()) + "\n\n", "data: [DONE]\n\n");
                    }))
                    .mapConcat(list -> list).map(ByteString::fromString)
                    .keepAlive(settings.keepAlive(), () -> KEEP_ALIVE_COMMENT);
            return CompletableFuture.completedFuture(sse(events).addHeader(traceHeader));
        }
        CompletionStage<HttpResponse> answer = run.result().thenApply(r -> r.answered()
                ? json(200, SwarmAnswers.completion(id, now, r)) : error(unanswered(r, trace)));
        return patient(answer.exceptionally(OpenAiRoutes::error), materializer, List.of(traceHeader));
    }

    private static ApiError unanswered(SwarmResult r, String trace) {
        return ApiError.internal("the swarm ended without an answer (" + r.stopReason()
                + (r.error() == null ? "" : ": " + r.error()) + "); its trace is in " + trace);
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

    static HttpResponse sse(Source<ByteString, ?> source) {
        return HttpResponse.create().withStatus(StatusCodes.OK)
                .addHeader(RawHeader.create("Cache-Control", "no-cache"))
                .withEntity(HttpEntities.createChunked(EVENT_STREAM, source));
    }

    static ApiError asApiError(Throwable t) {
        Throwable c = t;
        while (c instanceof CompletionException && c.getCause() != null) c = c.getCause();
        return c instanceof ApiError a ? a : ApiError.internal(c.toString());
    }

    static HttpResponse error(Throwable t) {
        ApiError e = asApiError(t);
        HttpResponse r = json(e.status(), e.body());
        if (e.retryAfter() == null) return r;
        long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
        return r.addHeader(RawHeader.create("Retry-After", Long.toString(seconds)));
    }

}
