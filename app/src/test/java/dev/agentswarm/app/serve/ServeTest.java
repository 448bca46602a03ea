package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.policy.embedded.EmbeddedModel;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GeneratorSettings;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import dev.agentswarm.policy.openai.OpenAiSettings;
import dev.agentswarm.testkit.EpisodeHarness;
import dev.agentswarm.testkit.ScriptedPolicy;
import dev.agentswarm.orchestrator.swarm.Orchestrator;
import dev.agentswarm.workers.PolicyServer;
import dev.agentswarm.core.tool.CalculatorTool;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code swarm serve} on the embedded {@code small} model, driven by clients nobody here wrote: the
 * official OpenAI Java SDK and the {@code openai} npm package (plain, streamed, a tool-call round trip,
 * bad requests, a full queue), and agentswarm's own {@link OpenAiCompatiblePolicy} running an episode
 * whose trajectory must hold exactly the tokens and log-probs the server sampled.
 *
 * <p>Beside the node's own binding, a second one on the same node serves through the same route: a
 * scripted model that writes a Hermes tool call (the untrained model never does), a recording wrapper
 * of the node's model, and a policy server with one slot and no queue (for 429).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServeTest {

    private static final String WEATHER_CALL = "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

    private static final Path RUNS = Path.of("target", "serve-runs");

    /** The root plans one sub-agent that adds with the calculator, then finishes with its answer. */
    private static final Function<CompletionRequest, String> SWARM_SCRIPT = req -> {
        boolean root = Orchestrator.agentOf(req.episodeId()).equals("root");
        if (root) {
            return req.turn() == 1
                    ? "<tool_call>{\"name\": \"spawn_subagents\", \"arguments\": {\"subtasks\": [{\"id\": \"a\", \"goal\": \"2 + 3\", \"tools\": [\"calculator\"]}]}}</tool_call>"
                    : "<tool_call>{\"name\": \"finish\", \"arguments\": {\"answer\": \"5\"}}</tool_call>";
        }
        return req.turn() == 1 ? "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2 + 3\"}}</tool_call>" : "5";
    };

    private ServingNode serving;
    private ServerBinding extra;
    private EmbeddedModel tinyModel;
    private String extraUrl;
    private OpenAIClient sdk;
    private OpenAIClient extraSdk;
    private final List<List<Message>> scriptedSaw = new CopyOnWriteArrayList<>();
    private final List<Generation> recorded = new CopyOnWriteArrayList<>();

    @BeforeAll
    void start() throws Exception {
        Config cfg = ConfigFactory.parseString("pekko.actor.serialize-messages = on").withFallback(SwarmNode.loadConfig(null));
        // The node also serves "swarm"; its agents follow a script (the untrained model would never finish).
        serving = ServingNode.start(cfg, "small", true, RUNS, "127.0.0.1", 0, embedded -> ScriptedPolicy.texts(SWARM_SCRIPT));
        var system = serving.node().system();
        PolicyServerModel small = PolicyServerModel.of("small", serving.policy(), system);
        ServedModel scripted = new ScriptedModel("scripted", small, messages -> {
            scriptedSaw.add(messages);
            Message last = messages.get(messages.size() - 1);
            return last.role() == Role.TOOL ? "It is " + last.content() + " in Paris." : WEATHER_CALL;
        });
        ServedModel recording = new RecordingModel("small-recorded", small, recorded);
        tinyModel = EmbeddedModel.fromConfig(cfg.withValue("agentswarm.policy.embedded.model.preset",
                com.typesafe.config.ConfigValueFactory.fromAnyRef("tiny")));
        ActorRef<PolicyServer.Command> oneSlot = system.systemActorOf(
                PolicyServer.create(() -> tinyModel.newGenerator(new GeneratorSettings(1, 0, 4096, 1))), "one-slot-server",
                Props.empty().withDispatcherFromConfig("agentswarm.policy-server-dispatcher"));
        ServedModel tinyQueue = new PolicyServerModel("tiny-queue", system, oneSlot, tinyModel.template(), Duration.ofSeconds(60));
        extra = OpenAiServer.bind(system, "127.0.0.1", 0, new OpenAiRoutes(List.of(scripted, recording, tinyQueue), null).route())
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        extraUrl = "http://127.0.0.1:" + extra.localAddress().getPort() + "/v1";
        sdk = OpenAIOkHttpClient.builder().baseUrl(serving.baseUrl()).apiKey("none").maxRetries(0).build();
        extraSdk = OpenAIOkHttpClient.builder().baseUrl(extraUrl).apiKey("none").maxRetries(0).build();
    }

    @AfterAll
    void stop() {
        if (sdk != null) sdk.close();
        if (extraSdk != null) extraSdk.close();
        if (serving != null) serving.close();
        if (tinyModel != null) tinyModel.close();
    }

    private static ChatCompletionCreateParams.Builder ask(String model, int maxTokens) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage("What is 2+3?").maxCompletionTokens(maxTokens);
    }

    /** What the node's policy server answers for the same conversation, asked directly. */
    private Completion direct(SamplingParams sampling) throws Exception {
        return serving.policy().complete(new CompletionRequest("direct-" + System.nanoTime(), 1,
                List.of(Message.user("What is 2+3?")), List.of(), "auto", sampling)).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    @Test
    void modelsAreListed() {
        List<String> ids = sdk.models().list().data().stream().map(m -> m.id()).toList();
        assertEquals(List.of("small", "swarm"), ids);
        assertEquals("small", sdk.models().retrieve("small").id());
    }

    @Test
    void theNodesMetricsAndHealthAnswerOnTheApiPort() throws Exception {
        String base = serving.baseUrl().replaceFirst("/v1$", "");
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.util.function.Function<String, java.net.http.HttpResponse<String>> get = path -> {
            try {
                return http.send(java.net.http.HttpRequest.newBuilder(URI.create(base + path)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(path, e);
            }
        };
        double before = tokensServed(get.apply("/metrics").body());
        ChatCompletion c = sdk.chat().completions().create(ask("small", 6).temperature(0.0).build());
        long tokens = c.usage().orElseThrow().completionTokens();
        var metrics = get.apply("/metrics");
        assertEquals(200, metrics.statusCode());
        assertEquals(before + tokens, tokensServed(metrics.body()), 0.0, "the policy server's tokens, counted from the node's start");
        assertEquals(200, get.apply("/alive").statusCode());
        assertEquals(200, get.apply("/ready").statusCode());
    }

    /** agentswarm_policy_tokens_generated_tokens_total in a Prometheus scrape. */
    private static double tokensServed(String scrape) {
        return dev.agentswarm.app.metrics.PrometheusText.parse(scrape).value("agentswarm_policy_tokens_generated_tokens_total");
    }

    @Test
    void theModelSwarmRunsASwarmAndNamesItsTrace() throws Exception {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("swarm").addUserMessage("What is 2 + 3?").build();
        HttpResponseFor<ChatCompletion> raw = sdk.chat().completions().withRawResponse().create(params);
        ChatCompletion c = raw.parse();
        assertEquals("5", c.choices().get(0).message().content().orElseThrow());
        assertEquals(ChatCompletion.Choice.FinishReason.STOP, c.choices().get(0).finishReason());
        Path trace = Path.of(raw.headers().values(OpenAiRoutes.TRACE_HEADER).get(0));
        assertTrue(trace.startsWith(RUNS), trace.toString());
        if (Files.getFileStore(trace).supportsFileAttributeView("posix")) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(trace)),
                    "the run folder holds model output and tool results: its owner's only");
        }
        List<String> events = Files.readAllLines(trace.resolve("trace.jsonl"));
        assertTrue(events.stream().anyMatch(l -> l.contains("2 + 3")), "the task and its sub-agent are in the trace");
        assertTrue(Files.exists(trace.resolve("trace.html")));

        StringBuilder streamed = new StringBuilder();
        try (StreamResponse<ChatCompletionChunk> stream = sdk.chat().completions().createStreaming(params)) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(ch -> ch.delta().content().ifPresent(streamed::append)));
        }
        assertEquals("5", streamed.toString());

        BadRequestException two = assertThrows(BadRequestException.class,
                () -> sdk.chat().completions().create(params.toBuilder().n(2L).build()));
        assertEquals("n", two.param().orElse(null));
    }

    @Test
    void aPlainCompletionIsWhatThePolicyServerSamples() throws Exception {
        ChatCompletion c = sdk.chat().completions().create(ask("small", 12).temperature(0.0).build());
        Completion d = direct(new SamplingParams(0.0, 1.0, 0, 12, List.of(), null));
        assertEquals(d.text(), c.choices().get(0).message().content().orElse(""));
        assertEquals(d.finishReason() == FinishReason.LENGTH ? ChatCompletion.Choice.FinishReason.LENGTH
                : ChatCompletion.Choice.FinishReason.STOP, c.choices().get(0).finishReason());
        assertEquals(d.tokenIds().length, c.usage().orElseThrow().completionTokens());
        assertEquals(d.promptTokens(), c.usage().orElseThrow().promptTokens());
        assertEquals("small", c.model());
    }

    @Test
    void logProbsAndTokenIdsAreThoseSampledWithTheSeed() throws Exception {
        ChatCompletion c = sdk.chat().completions().create(ask("small", 10).temperature(1.0).seed(42).logprobs(true)
                .putAdditionalBodyProperty("return_token_ids", JsonValue.from(true)).build());
        Completion d = direct(new SamplingParams(1.0, 1.0, 0, 10, List.of(), 42L));
        ChatCompletion.Choice choice = c.choices().get(0);
        JsonNode ids = Json.MAPPER.valueToTree(choice._additionalProperties().get("token_ids").convert(Object.class));
        int[] tokenIds = new int[ids.size()];
        for (int i = 0; i < tokenIds.length; i++) tokenIds[i] = ids.get(i).asInt();
        assertArrayEquals(d.tokenIds(), tokenIds);
        List<ChatCompletionTokenLogprob> lps = choice.logprobs().orElseThrow().content().orElseThrow();
        assertEquals(d.logprobs().length, lps.size());
        for (int i = 0; i < lps.size(); i++) assertEquals(d.logprobs()[i], lps.get(i).logprob(), 1e-6, "logprob " + i);
        JsonNode promptIds = Json.MAPPER.valueToTree(c._additionalProperties().get("prompt_token_ids").convert(Object.class));
        assertEquals(d.promptTokens(), promptIds.size());
    }

    @Test
    void topLogprobsAreTheMostLikelyTokensOfEachPositionPlainAndStreamed() {
        // Tokens named by id: different ids may print the same (a partial UTF-8 character shows as U+FFFD).
        ChatCompletion c = sdk.chat().completions().create(ask("small", 8).temperature(1.0).seed(7).logprobs(true).topLogprobs(3L)
                .putAdditionalBodyProperty("return_tokens_as_token_ids", JsonValue.from(true)).build());
        List<ChatCompletionTokenLogprob> lps = c.choices().get(0).logprobs().orElseThrow().content().orElseThrow();
        assertEquals(c.usage().orElseThrow().completionTokens(), lps.size());
        List<List<Double>> plainTops = new ArrayList<>();
        for (ChatCompletionTokenLogprob lp : lps) {
            List<ChatCompletionTokenLogprob.TopLogprob> top = lp.topLogprobs();
            assertEquals(3, top.size(), "three alternatives at temperature 1 over the whole vocabulary");
            double mass = 0;
            for (int k = 0; k < top.size(); k++) {
                if (k > 0) assertTrue(top.get(k - 1).logprob() >= top.get(k).logprob(), "most likely first: " + top);
                mass += Math.exp(top.get(k).logprob());
            }
            assertTrue(mass <= 1.0 + 1e-5, "a distribution's top three: " + mass);
            assertTrue(lp.logprob() <= top.get(0).logprob() + 1e-6, "nothing beats the first alternative");
            for (var t : top) if (t.token().equals(lp.token())) assertEquals(lp.logprob(), t.logprob(), 1e-6, "the sampled token, listed");
            plainTops.add(top.stream().map(ChatCompletionTokenLogprob.TopLogprob::logprob).toList());
        }
        // The same seed streamed: the same tokens, with the same alternatives, chunk by chunk.
        List<List<Double>> streamedTops = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = sdk.chat().completions().createStreaming(ask("small", 8).temperature(1.0)
                .seed(7).logprobs(true).topLogprobs(3L).build())) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(ch -> ch.logprobs().flatMap(l -> l.content()).ifPresent(content ->
                    content.forEach(lp -> streamedTops.add(lp.topLogprobs().stream().map(ChatCompletionTokenLogprob.TopLogprob::logprob).toList())))));
        }
        assertEquals(plainTops, streamedTops);
    }

    @Test
    void aStreamedCompletionAddsUpToThePlainOne() {
        ChatCompletion plain = sdk.chat().completions().create(ask("small", 16).temperature(0.0).build());
        StringBuilder text = new StringBuilder();
        List<String> finishes = new ArrayList<>();
        int chunks = 0;
        long usageTokens = -1;
        try (StreamResponse<ChatCompletionChunk> stream = sdk.chat().completions().createStreaming(ask("small", 16).temperature(0.0)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build())) {
            for (ChatCompletionChunk chunk : (Iterable<ChatCompletionChunk>) stream.stream()::iterator) {
                chunks++;
                if (chunk.usage().isPresent()) usageTokens = chunk.usage().get().completionTokens();
                for (ChatCompletionChunk.Choice ch : chunk.choices()) {
                    ch.delta().content().ifPresent(text::append);
                    ch.finishReason().ifPresent(f -> finishes.add(f.asString()));
                }
            }
        }
        assertEquals(plain.choices().get(0).message().content().orElse(""), text.toString());
        assertEquals(List.of(plain.choices().get(0).finishReason().asString()), finishes);
        assertEquals(plain.usage().orElseThrow().completionTokens(), usageTokens);
        assertTrue(chunks >= 4, "a role chunk, token chunks, a finish chunk and the usage; got " + chunks);
    }

    @Test
    void aToolCallRoundTrip() {
        FunctionDefinition weather = FunctionDefinition.builder().name("get_weather").description("The weather in a city")
                .parameters(FunctionParameters.builder().putAdditionalProperty("type", JsonValue.from("object"))
                        .putAdditionalProperty("properties", JsonValue.from(Map.of("city", Map.of("type", "string")))).build())
                .build();
        ChatCompletionCreateParams first = ChatCompletionCreateParams.builder().model("scripted")
                .addUserMessage("What is the weather in Paris?").addFunctionTool(weather).build();
        ChatCompletion c = extraSdk.chat().completions().create(first);
        ChatCompletion.Choice choice = c.choices().get(0);
        assertEquals(ChatCompletion.Choice.FinishReason.TOOL_CALLS, choice.finishReason());
        assertEquals("Let me look.", choice.message().content().orElse(null));
        ChatCompletionMessageFunctionToolCall call = choice.message().toolCalls().orElseThrow().get(0).asFunction();
        assertEquals("get_weather", call.function().name());
        assertEquals("Paris", Json.MAPPER.valueToTree(Json.read(call.function().arguments(), Map.class)).get("city").asText());
        assertTrue(call.id().startsWith("call_"));

        ChatCompletion answer = extraSdk.chat().completions().create(first.toBuilder().addMessage(choice.message())
                .addMessage(ChatCompletionToolMessageParam.builder().toolCallId(call.id()).content("sunny").build()).build());
        assertEquals("It is sunny in Paris.", answer.choices().get(0).message().content().orElseThrow());
        List<Message> saw = scriptedSaw.get(scriptedSaw.size() - 1);
        Message assistant = saw.get(1);
        assertEquals("get_weather", assistant.toolCalls().get(0).name());
        assertEquals("Paris", assistant.toolCalls().get(0).arguments().get("city").asText(), "the arguments came back as JSON");
        assertEquals(call.id(), saw.get(2).toolCallId());
        assertEquals("get_weather", saw.get(2).name(), "the tool message is named after the call it answers");

        // Streamed: the prose, then the call as tool_calls deltas, then finish_reason tool_calls.
        StringBuilder args = new StringBuilder();
        StringBuilder content = new StringBuilder();
        List<String> names = new ArrayList<>();
        List<String> finishes = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = extraSdk.chat().completions().createStreaming(first)) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(ch -> {
                ch.delta().content().ifPresent(content::append);
                ch.delta().toolCalls().ifPresent(calls -> calls.forEach(d -> {
                    assertEquals(0, d.index());
                    d.function().flatMap(f -> f.name()).ifPresent(names::add);
                    d.function().flatMap(f -> f.arguments()).ifPresent(args::append);
                }));
                ch.finishReason().ifPresent(f -> finishes.add(f.asString()));
            }));
        }
        assertEquals("Let me look.", content.toString().strip());
        assertFalse(content.toString().contains("<tool_call>"), "the call's text is never streamed as content");
        assertEquals(List.of("get_weather"), names);
        assertEquals("{\"city\":\"Paris\"}", args.toString());
        assertEquals(List.of("tool_calls"), finishes);
    }

    @Test
    void badRequestsNameTheField() {
        BadRequestException temperature = assertThrows(BadRequestException.class,
                () -> sdk.chat().completions().create(ask("small", 4).temperature(3.0).build()));
        assertEquals(400, temperature.statusCode());
        assertEquals("temperature", temperature.param().orElse(null));
        assertTrue(temperature.getMessage().contains("[0, 2]"), temperature.getMessage());

        BadRequestException topLogprobs = assertThrows(BadRequestException.class,
                () -> sdk.chat().completions().create(ask("small", 4).topLogprobs(3L).build()));
        assertEquals("top_logprobs", topLogprobs.param().orElse(null));
        assertTrue(topLogprobs.getMessage().contains("needs \"logprobs\": true"), topLogprobs.getMessage());

        BadRequestException role = assertThrows(BadRequestException.class, () -> sdk.chat().completions().create(
                ChatCompletionCreateParams.builder().model("small").addUserMessage("x")
                        .putAdditionalBodyProperty("messages", JsonValue.from(List.of(Map.of("role", "robot", "content", "x"))))
                        .build()));
        assertEquals("messages[0].role", role.param().orElse(null));

        NotFoundException unknown = assertThrows(NotFoundException.class, () -> sdk.chat().completions().create(ask("gpt-9", 4).build()));
        assertEquals(404, unknown.statusCode());
        assertEquals("model_not_found", unknown.code().orElse(null));
        assertTrue(unknown.getMessage().contains("`small`"), unknown.getMessage());
    }

    @Test
    void aFullQueueAnswers429() throws Exception {
        List<CompletableFuture<Integer>> burst = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            burst.add(extraSdk.async().chat().completions().create(ask("tiny-queue", 48).build())
                    .handle((c, e) -> e == null ? 200 : e.getCause() instanceof OpenAIServiceException s ? s.statusCode()
                            : e instanceof OpenAIServiceException s2 ? s2.statusCode() : -1));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<Integer> f : burst) statuses.add(f.get(60, TimeUnit.SECONDS));
        assertTrue(statuses.contains(200), statuses.toString());
        assertTrue(statuses.contains(429), statuses.toString());
        assertTrue(statuses.stream().allMatch(s -> s == 200 || s == 429), statuses.toString());
        RateLimitException limited = null;
        for (int i = 0; i < 20 && limited == null; i++) {
            List<CompletableFuture<?>> pair = List.of(
                    extraSdk.async().chat().completions().create(ask("tiny-queue", 48).build()),
                    extraSdk.async().chat().completions().create(ask("tiny-queue", 48).build()));
            for (CompletableFuture<?> f : pair) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof RateLimitException r) limited = r;
                }
            }
        }
        assertNotNull(limited);
        assertEquals("queue_full", limited.code().orElse(null));
        assertTrue(limited.headers().values("Retry-After").contains("1"));
    }

    @Test
    void anEpisodeOfOpenAiCompatiblePolicyTrainsOnExactlyWhatTheServerSampled() {
        OpenAiCompatiblePolicy policy = new OpenAiCompatiblePolicy(OpenAiSettings.of(URI.create(extraUrl), "small-recorded"));
        recorded.clear();
        try (EpisodeHarness harness = EpisodeHarness.create(policy, new CalculatorTool())) {
            // The small model's context is 256 tokens: a short system prompt and no tool list leave room for two turns.
            EpisodeSpec spec = harness.spec().withFormat("hermes").withTools(List.of()).withSystemPrompt("Answer briefly.").withMaxTurns(2)
                    .withSampling(new SamplingParams(1.0, 1.0, 0, 24, List.of(), 11L));
            // Episodes one after another, so the server's generations line up with the turns in order.
            List<Turn> policyTurns = new ArrayList<>();
            for (String q : List.of("What is 17 * 23?", "Name a prime.", "Spell cat.")) {
                Trajectory t = harness.run(Task.of("t" + policyTurns.size(), q), spec);
                assertTrue(t.stopReason() != dev.agentswarm.core.protocol.StopReason.POLICY_ERROR, t.toString());
                t.turns().stream().filter(x -> x.role() == Role.ASSISTANT).forEach(policyTurns::add);
            }
            assertEquals(recorded.size(), policyTurns.size(), "one server generation per policy turn");
            for (int i = 0; i < policyTurns.size(); i++) {
                assertTrue(recorded.get(i).tokens().length > 0);
                assertArrayEquals(recorded.get(i).tokens(), policyTurns.get(i).tokenIds(), "turn " + i + " token ids");
                assertArrayEquals(recorded.get(i).logprobs(), policyTurns.get(i).logprobs(), "turn " + i + " log-probs");
            }
        }
    }

    @Test
    void theOpenAiNpmClientDoesTheSame() throws Exception {
        Path fixtures = Path.of("..", "testkit", "ecosystem-fixtures").toAbsolutePath().normalize();
        Path module = fixtures.resolve("node_modules/openai/index.mjs");
        if (!Files.exists(module) || !NodeProcesses.hasNode()) {
            if ("1".equals(System.getenv("AGENTSWARM_REQUIRE_ECOSYSTEM_FIXTURES"))) {
                fail("the openai npm client is missing: " + module + " (bin/test installs it with npm ci in " + fixtures + ")");
            }
            assumeTrue(false, "skipped: node or the openai npm client (" + module + ") is not installed;"
                    + " (cd testkit/ecosystem-fixtures && npm ci --ignore-scripts) installs it");
        }
        Path script = Path.of(getClass().getResource("/serve/openai-client.mjs").toURI());
        NodeProcesses.Result r = NodeProcesses.run(Duration.ofSeconds(60), "node", script.toString(), module.toString(),
                serving.baseUrl(), extraUrl, extraUrl);
        assertEquals(0, r.exit(), r.output());
        String[] lines = r.stdout().strip().split("\n");
        JsonNode out = Json.parse(lines[lines.length - 1]);
        assertEquals("small", out.get("models").get(0).asText());

        Completion d = direct(new SamplingParams(0.0, 1.0, 0, 8, List.of(), null));
        assertEquals(d.text(), out.get("plain").get("content").asText());
        assertEquals(d.tokenIds().length, out.get("plain").get("usage").get("completion_tokens").asInt());
        assertEquals(d.text(), out.get("streamed").get("content").asText());
        assertEquals(out.get("plain").get("finish").asText(), out.get("streamed").get("finish").asText());
        assertEquals(d.tokenIds().length, out.get("streamed").get("usage").get("completion_tokens").asInt());

        JsonNode tools = out.get("tools");
        assertEquals("tool_calls", tools.get("finish").asText());
        assertEquals("get_weather", tools.get("name").asText());
        assertEquals("Paris", tools.get("arguments").get("city").asText());
        assertEquals("It is sunny, 21 C in Paris.", tools.get("answer").asText());
        assertEquals("get_weather", tools.get("streamedName").asText());
        assertEquals("{\"city\":\"Paris\"}", tools.get("streamedArguments").asText());
        assertEquals("tool_calls", tools.get("streamedFinish").asText());

        assertEquals(400, out.get("badTemperature").get("status").asInt());
        assertEquals("temperature", out.get("badTemperature").get("param").asText());
        assertEquals(400, out.get("badRole").get("status").asInt());
        assertEquals("messages[0].role", out.get("badRole").get("param").asText());
        assertEquals(404, out.get("unknownModel").get("status").asInt());
        assertEquals("model_not_found", out.get("unknownModel").get("code").asText());
        List<Integer> burst = new ArrayList<>();
        out.get("burst").forEach(s -> burst.add(s.asInt()));
        assertTrue(burst.contains(200) && burst.contains(429), burst.toString());
    }

    /** A model whose replies a function writes from the conversation; its tokens are the text's, by the real tokenizer. */
    static final class ScriptedModel implements ServedModel {
        private final String id;
        private final ServedModel tokenizing;
        private final Function<List<Message>, String> reply;
        private final ThreadLocal<List<Message>> lastMessages = new ThreadLocal<>();
        private final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();

        ScriptedModel(String id, PolicyServerModel tokenizing, Function<List<Message>, String> reply) {
            this.id = id;
            this.tokenizing = tokenizing;
            this.reply = reply;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
            lastMessages.set(messages);
            return tokenizing.prompt(messages, tools);
        }

        @Override
        public byte[] tokenBytes(int tokenId) {
            return tokenizing.tokenBytes(tokenId);
        }

        @Override
        public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
            String text = reply.apply(lastMessages.get());
            int[] tokens = tokens(text);
            float[] logprobs = new float[tokens.length];
            Arrays.fill(logprobs, -0.25f);
            if (stream && tokens.length > 1) {
                // Token by token, as the policy server streams: the last one comes with the generation.
                for (int i = 0; i < tokens.length - 1; i++) listener.tokens(new int[] {tokens[i]}, new float[] {logprobs[i]}, null);
            }
            listener.done(new Generation(ids.incrementAndGet(), tokens, logprobs, text, FinishReason.STOP, 0, 0, prompt.length, 0, 0));
            return () -> {};
        }

        private int[] tokens(String text) {
            List<Integer> out = new ArrayList<>();
            // One token per byte keeps the stream's pieces honest: "<tool_call>" arrives over many tokens.
            for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) out.add(byteToken(b));
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

        private int byteToken(byte b) {
            for (int id = 0; id < 512; id++) {
                byte[] bytes = tokenizing.tokenBytes(id);
                if (bytes.length == 1 && bytes[0] == b) return id;
            }
            throw new IllegalStateException("no token for byte " + b);
        }
    }

    /** The node's model, remembering every generation it served. */
    record RecordingModel(String id, ServedModel inner, List<Generation> generations) implements ServedModel {
        @Override
        public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
            return inner.prompt(messages, tools);
        }

        @Override
        public byte[] tokenBytes(int tokenId) {
            return inner.tokenBytes(tokenId);
        }

        @Override
        public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
            return inner.generate(prompt, sampling, stream, new Listener() {
                @Override
                public void tokens(int[] ids, float[] logprobs, dev.agentswarm.policy.embedded.TopLogprobs top) {
                    listener.tokens(ids, logprobs, null);
                }

                @Override
                public void done(Generation generation) {
                    generations.add(generation);
                    listener.done(generation);
                }

                @Override
                public void failed(ApiError error) {
                    listener.failed(error);
                }
            });
        }
    }
}
