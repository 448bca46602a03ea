package dev.agentswarm.policy.openai;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.openai.RecordingChatServer.Received;
import dev.agentswarm.policy.openai.RecordingChatServer.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The policy against a real local HTTP server that answers with recorded chat.completion bodies
 * (src/test/resources/openai) and records what the policy sent.
 */
class OpenAiCompatiblePolicyTest {

    private static final String MODEL = "Qwen/Qwen3-8B";

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeServers() throws Exception {
        for (AutoCloseable c : toClose) c.close();
    }

    // ---------------------------------------------------------------- successful answers

    @Test
    void plainTextAnswerWithLogprobsAndTokenIds() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_text.json")));
        OpenAiSettings settings = fast(server).withApiKey("sk-local-test").withLogprobs(true, 2, true);
        var request = new CompletionRequest("ep-1", 0,
                List.of(Message.system("You are a helpful assistant."), Message.user("What is the capital of France?")),
                List.of(), "auto", new SamplingParams(0.7, 0.9, 0, 64, List.of(), null));

        Completion c = await(new OpenAiCompatiblePolicy(settings).complete(request));

        assertEquals("The capital of France is Paris.", c.text());
        assertTrue(c.toolCalls().isEmpty());
        assertArrayEquals(new int[] {785, 6722, 315, 9625, 374, 12095, 13, 151645}, c.tokenIds());
        assertArrayEquals(new float[] {-0.0312f, -0.0021f, -0.0000123f, -0.00041f, -0.0154f, -0.0009f, -0.2431f,
                -0.0062f}, c.logprobs());
        assertEquals(FinishReason.STOP, c.finishReason());
        assertEquals(0, c.policyVersion());
        assertEquals(31, c.promptTokens());
        assertEquals(8, c.completionTokens());

        assertEquals(1, server.count());
        Received r = server.last();
        assertEquals("POST", r.method());
        assertEquals("/v1/chat/completions", r.path());
        assertEquals("Bearer sk-local-test", r.header("Authorization"));
        assertTrue(r.header("Content-Type").startsWith("application/json"));
        JsonNode body = r.json();
        assertEquals(MODEL, body.get("model").asText());
        assertEquals(Json.parse("""
                [{"role":"system","content":"You are a helpful assistant."},
                 {"role":"user","content":"What is the capital of France?"}]"""), body.get("messages"));
        assertFalse(body.has("tools"), "no tools offered, none sent");
        assertFalse(body.has("tool_choice"), "tool_choice only travels with tools");
        assertEquals(0.7, body.get("temperature").asDouble());
        assertEquals(0.9, body.get("top_p").asDouble());
        assertFalse(body.has("top_k"), "top_k 0 means no cut and is not sent");
        assertEquals(64, body.get("max_tokens").asInt());
        assertFalse(body.has("stop"));
        assertFalse(body.has("seed"));
        assertTrue(body.get("logprobs").asBoolean());
        assertEquals(2, body.get("top_logprobs").asInt());
        assertTrue(body.get("return_token_ids").asBoolean());
        assertFalse(body.get("stream").asBoolean());
    }

    @Test
    void parallelToolCallsAndToolHistoryOnTheWire() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_parallel_tool_calls.json")));
        ObjectNode parisArgs = Json.object().put("city", "Paris");
        List<Message> history = List.of(
                Message.system("Use the tools."),
                Message.user("Weather in Paris, and what is 2+2?"),
                Message.assistant("", List.of(new ToolCall("call_1", "get_weather", parisArgs),
                        new ToolCall("call_2", "calculator", TextNode.valueOf("{\"expression\": \"2+2\"")))),
                Message.tool("call_1", "get_weather", "{\"temp_c\": 21}"),
                Message.tool("call_2", "calculator", "error: arguments are not valid JSON"),
                Message.user("Try again."));
        var request = new CompletionRequest("ep-2", 3, history, List.of(weatherTool(), calculatorTool()), "auto",
                new SamplingParams(0.6, 0.95, 20, 256, List.of("</answer>", "Observation:"), 42L));

        Completion c = await(new OpenAiCompatiblePolicy(fast(server)).complete(request));

        assertEquals("", c.text(), "content null reads as empty text");
        assertEquals(2, c.toolCalls().size());
        ToolCall first = c.toolCalls().get(0);
        assertEquals("chatcmpl-tool-9b1f6c2d4e8a4f0b8c7d6e5f4a3b2c1d", first.id());
        assertEquals("get_weather", first.name());
        assertEquals(TextNode.valueOf("{\"city\": \"Paris\"}"), first.arguments(), "arguments stay the raw JSON string");
        ToolCall second = c.toolCalls().get(1);
        assertEquals("chatcmpl-tool-2c7e9a0b1d3f4e5a8b6c9d0e1f2a3b4c", second.id());
        assertEquals("calculator", second.name());
        assertEquals(TextNode.valueOf("{\"expression\": \"2 + 2\"}"), second.arguments());
        assertEquals(FinishReason.TOOL_CALLS, c.finishReason());
        assertEquals(42, c.tokenIds().length);
        assertEquals(151657, c.tokenIds()[0], "<tool_call>");
        assertEquals(151645, c.tokenIds()[41], "<|im_end|>");
        assertEquals(42, c.logprobs().length);
        assertEquals(-0.0419f, c.logprobs()[0]);
        assertEquals(412, c.promptTokens());
        assertEquals(42, c.completionTokens());

        Received r = server.last();
        assertNull(r.header("Authorization"), "no key, no Authorization header");
        JsonNode body = r.json();
        assertEquals(Json.parse("""
                [{"type":"function","function":{"name":"get_weather","description":"Current weather in a city",
                  "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
                 {"type":"function","function":{"name":"calculator","description":"Evaluates an arithmetic expression",
                  "parameters":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}}]
                """), body.get("tools"));
        assertEquals("auto", body.get("tool_choice").asText());

        JsonNode assistant = body.get("messages").get(2);
        assertEquals("assistant", assistant.get("role").asText());
        assertTrue(assistant.get("content").isNull(), "empty content beside tool calls goes as null");
        JsonNode call1 = assistant.get("tool_calls").get(0);
        assertEquals("call_1", call1.get("id").asText());
        assertEquals("function", call1.get("type").asText());
        assertEquals("get_weather", call1.get("function").get("name").asText());
        assertTrue(call1.get("function").get("arguments").isTextual(), "arguments travel as a JSON string");
        assertEquals("{\"city\":\"Paris\"}", call1.get("function").get("arguments").asText());
        assertEquals("{\"expression\": \"2+2\"", assistant.get("tool_calls").get(1).get("function").get("arguments")
                .asText(), "a raw (even broken) argument string is sent back verbatim");

        assertEquals(Json.parse("""
                {"role":"tool","content":"{\\"temp_c\\": 21}","tool_call_id":"call_1","name":"get_weather"}"""),
                body.get("messages").get(3));
        assertEquals("call_2", body.get("messages").get(4).get("tool_call_id").asText());
        assertEquals("calculator", body.get("messages").get(4).get("name").asText());

        assertEquals(20, body.get("top_k").asInt());
        assertEquals(Json.parse("[\"</answer>\",\"Observation:\"]"), body.get("stop"));
        assertEquals(42L, body.get("seed").asLong());
        assertEquals(256, body.get("max_tokens").asInt());
        assertTrue(body.get("return_token_ids").asBoolean());
        assertFalse(body.has("top_logprobs"), "top-logprobs 0 is not sent");
    }

    @Test
    void toolChoiceForms() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_text.json")));
        OpenAiCompatiblePolicy policy = new OpenAiCompatiblePolicy(fast(server));
        List<ToolSpec> tools = List.of(weatherTool());
        for (String choice : List.of("none", "required", "auto", "get_weather")) {
            await(policy.complete(new CompletionRequest("ep", 0, List.of(Message.user("hi")), tools, choice, null)));
        }
        await(policy.complete(new CompletionRequest("ep", 0, List.of(Message.user("hi")), List.of(), "required", null)));

        List<Received> got = server.received();
        assertEquals(TextNode.valueOf("none"), got.get(0).json().get("tool_choice"));
        assertEquals(TextNode.valueOf("required"), got.get(1).json().get("tool_choice"));
        assertEquals(TextNode.valueOf("auto"), got.get(2).json().get("tool_choice"));
        assertEquals(Json.parse("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}"),
                got.get(3).json().get("tool_choice"));
        assertFalse(got.get(4).json().has("tools"));
        assertFalse(got.get(4).json().has("tool_choice"), "no tools, so no tool_choice either");
    }

    @Test
    void llamaCppAnswerWithoutLogprobsOrTokenIds() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("llamacpp_text.json")));
        OpenAiSettings settings = fast(server).withModel("qwen2.5-7b-instruct").withLogprobs(false, 0, false);

        Completion c = await(new OpenAiCompatiblePolicy(settings).complete(userAsks("What is 2 + 2?")));

        assertEquals("Step 1: add the two numbers. 2 + 2 = 4, so", c.text());
        assertTrue(c.toolCalls().isEmpty());
        assertEquals(0, c.tokenIds().length);
        assertEquals(0, c.logprobs().length);
        assertEquals(FinishReason.LENGTH, c.finishReason());
        assertEquals(27, c.promptTokens());
        assertEquals(16, c.completionTokens());
        assertEquals(0, c.policyVersion());

        JsonNode body = server.last().json();
        assertEquals("qwen2.5-7b-instruct", body.get("model").asText());
        assertFalse(body.has("logprobs"));
        assertFalse(body.has("top_logprobs"));
        assertFalse(body.has("return_token_ids"));
    }

    @Test
    void ollamaToolCallWithEmptyContent() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("ollama_tool_call.json")));
        Completion c = await(new OpenAiCompatiblePolicy(fast(server).withModel("qwen3:8b"))
                .complete(new CompletionRequest("ep", 0, List.of(Message.user("Weather in Tokyo?")),
                        List.of(weatherTool()), "auto", null)));

        assertEquals("", c.text());
        assertEquals(List.of(new ToolCall("call_x1n3k0qa", "get_weather", TextNode.valueOf("{\"city\":\"Tokyo\"}"))),
                c.toolCalls());
        assertEquals(FinishReason.TOOL_CALLS, c.finishReason());
        assertEquals(0, c.tokenIds().length);
        assertEquals(0, c.logprobs().length);
        assertEquals(188, c.promptTokens());
        assertEquals(21, c.completionTokens());
    }

    @Test
    void tokenIdsRecoveredFromTokenIdLogprobTokens() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_token_id_logprobs.json")));
        OpenAiSettings settings = fast(server).withLogprobs(true, 0, false)
                .withExtraBody(Map.of("return_tokens_as_token_ids", true));

        Completion c = await(new OpenAiCompatiblePolicy(settings).complete(userAsks("2+2?")));

        assertEquals("The answer is 4.", c.text());
        assertArrayEquals(new int[] {785, 4226, 374, 220, 19, 13, 151645}, c.tokenIds());
        assertArrayEquals(new float[] {-0.0312f, -0.1544f, -0.0097f, -0.0008f, -0.0001f, -0.3120f, -0.0045f},
                c.logprobs());
        assertEquals(7, c.completionTokens());
        JsonNode body = server.last().json();
        assertTrue(body.get("return_tokens_as_token_ids").asBoolean(), "extra body merged at top level");
        assertFalse(body.has("return_token_ids"));
    }

    @Test
    void extraBodyIsMergedAtTopLevelAndWins() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_text.json")));
        Map<String, Object> extra = new java.util.LinkedHashMap<>();
        extra.put("chat_template_kwargs", Map.of("enable_thinking", false));
        extra.put("top_k", 5);
        extra.put("min_p", 0.05);
        await(new OpenAiCompatiblePolicy(fast(server).withExtraBody(extra)).complete(userAsks("hi")));

        JsonNode body = server.last().json();
        assertEquals(Json.parse("{\"enable_thinking\":false}"), body.get("chat_template_kwargs"));
        assertEquals(5, body.get("top_k").asInt());
        assertEquals(0.05, body.get("min_p").asDouble());
    }

    @Test
    void mismatchedTokenIdAndLogprobCountsAreKept() throws Exception {
        RecordingChatServer server = serve(Reply.ok("""
                {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},
                   "logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}]},
                   "finish_reason":"stop","token_ids":[13048,151645]}],
                 "usage":{"prompt_tokens":3,"total_tokens":5,"completion_tokens":2}}"""));
        Completion c = await(new OpenAiCompatiblePolicy(fast(server)).complete(userAsks("hi")));
        assertArrayEquals(new int[] {13048, 151645}, c.tokenIds());
        assertArrayEquals(new float[] {-0.5f}, c.logprobs());
    }

    @Test
    void policyVersionFromTopLevelField() throws Exception {
        String base = """
                {"id":"x","object":"chat.completion","created":1,"model":"m",%s
                 "choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}""";
        RecordingChatServer server = serve(new RecordingChatServer(List.of(
                Reply.ok(base.formatted("\"weight_version\": 7,")),
                Reply.ok(base.formatted("\"policy_version\": \"12\",")),
                Reply.ok(base.formatted("\"weight_version\": \"default\","))), Reply.ok(base.formatted(""))));
        OpenAiCompatiblePolicy policy = new OpenAiCompatiblePolicy(fast(server));
        assertEquals(7, await(policy.complete(userAsks("a"))).policyVersion());
        assertEquals(12, await(policy.complete(userAsks("b"))).policyVersion());
        assertEquals(0, await(policy.complete(userAsks("c"))).policyVersion(), "a non-numeric label is unknown");
        assertEquals(0, await(policy.complete(userAsks("d"))).policyVersion());
    }

    @Test
    void describeNamesEndpointAndModel() throws Exception {
        OpenAiSettings s = OpenAiSettings.of(URI.create("http://gpu-box:8000/v1/"), "Qwen/Qwen3-8B");
        assertEquals("openai http://gpu-box:8000/v1 model=Qwen/Qwen3-8B", new OpenAiCompatiblePolicy(s).describe());
    }

    // ---------------------------------------------------------------- failures

    @Test
    void connectionRefusedNamesTheUrl() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        OpenAiSettings settings = OpenAiSettings.of(URI.create("http://127.0.0.1:" + port + "/v1"), MODEL)
                .withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5));
        long start = System.nanoTime();
        PolicyException e = failure(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));
        assertTrue(e.getMessage().contains("http://127.0.0.1:" + port + "/v1/chat/completions"), e.getMessage());
        assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
        assertTrue(e.getMessage().contains("is the server running"), e.getMessage());
        assertTrue(e.retryable());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "fails fast");
    }

    @Test
    void badRequestReportsServerMessageWithoutRetry() throws Exception {
        String vllmError = """
                {"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested \
                4608 tokens (4096 in the messages, 512 in the completion). Please reduce the length of the messages \
                or completion.","type":"BadRequestError","param":null,"code":400}}""";
        RecordingChatServer server = serve(Reply.status(400, vllmError));
        PolicyException e = failure(new OpenAiCompatiblePolicy(fast(server)).complete(userAsks("hi")));
        assertTrue(e.getMessage().contains("HTTP 400"), e.getMessage());
        assertTrue(e.getMessage().contains("maximum context length is 4096 tokens"), e.getMessage());
        assertFalse(e.getMessage().contains("BadRequestError"), "the message, not the whole document");
        assertFalse(e.retryable());
        assertEquals(1, server.count(), "a 400 is not retried");
    }

    @Test
    void notFoundAndUnauthorizedCarryHints() throws Exception {
        RecordingChatServer server = serve(new RecordingChatServer(List.of(
                Reply.status(404, "{\"object\":\"error\",\"message\":\"The model `qwen` does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"),
                Reply.status(401, "{\"error\":\"Unauthorized\"}")), Reply.status(500, "")));
        OpenAiCompatiblePolicy policy = new OpenAiCompatiblePolicy(fast(server).withModel("qwen"));
        PolicyException notFound = failure(policy.complete(userAsks("hi")));
        assertTrue(notFound.getMessage().contains("The model `qwen` does not exist."), notFound.getMessage());
        assertTrue(notFound.getMessage().contains("/models"), notFound.getMessage());
        PolicyException unauthorized = failure(policy.complete(userAsks("hi")));
        assertTrue(unauthorized.getMessage().contains("HTTP 401: Unauthorized"), unauthorized.getMessage());
        assertTrue(unauthorized.getMessage().contains("OPENAI_API_KEY"), unauthorized.getMessage());
        assertEquals(2, server.count());
    }

    @Test
    void tooManyRequestsThenSuccessHonoursRetryAfter() throws Exception {
        RecordingChatServer server = serve(
                Reply.status(429, "{\"error\":{\"message\":\"Too many requests\",\"code\":429}}").withHeader("Retry-After", "1"),
                Reply.ok(fixture("vllm_text.json")));
        OpenAiSettings settings = fast(server).withRetries(3, Duration.ofMillis(1), Duration.ofSeconds(2));

        Completion c = await(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));

        assertEquals("The capital of France is Paris.", c.text());
        assertEquals(2, server.count());
        long gapMs = TimeUnit.NANOSECONDS.toMillis(server.received().get(1).atNanos() - server.received().get(0).atNanos());
        assertTrue(gapMs >= 900, "waited for Retry-After: 1 (" + gapMs + " ms)");
        assertEquals(server.received().get(0).body(), server.received().get(1).body(), "same request again");
    }

    @Test
    void retryAfterIsCappedAtMaxBackoff() throws Exception {
        RecordingChatServer server = serve(
                Reply.status(429, "slow down").withHeader("Retry-After", "30"),
                Reply.ok(fixture("vllm_text.json")));
        OpenAiSettings settings = fast(server).withRetries(1, Duration.ofMillis(1), Duration.ofMillis(100));
        long start = System.nanoTime();
        await(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "30 s capped at 100 ms");
        assertEquals(2, server.count());
    }

    @Test
    void serviceUnavailableForeverGivesUpAfterMaxRetries() throws Exception {
        RecordingChatServer server = serve(Reply.status(503, "{\"detail\":\"engine is loading weights\"}"));
        OpenAiSettings settings = fast(server).withRetries(3, Duration.ofMillis(1), Duration.ofMillis(5));

        PolicyException e = failure(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));

        assertEquals(4, server.count(), "one attempt plus max-retries");
        assertTrue(e.getMessage().contains("after 4 attempts"), e.getMessage());
        assertTrue(e.getMessage().contains("HTTP 503: engine is loading weights"), e.getMessage());
        assertTrue(e.retryable());
    }

    @Test
    void connectionResetIsRetried() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        String answer = fixture("vllm_text.json");
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        toClose.add(socket);
        Thread t = new Thread(() -> {
            try {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        if (connections.incrementAndGet() == 1) {
                            readRequest(s.getInputStream());
                            s.setSoLinger(true, 0); // close with a RST, as a crashed proxy would
                            continue;
                        }
                        readRequest(s.getInputStream());
                        byte[] body = answer.getBytes(StandardCharsets.UTF_8);
                        OutputStream out = s.getOutputStream();
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(body);
                        out.flush();
                    }
                }
            } catch (IOException closed) {
                // test over
            }
        }, "resetting-server");
        t.setDaemon(true);
        t.start();
        OpenAiSettings settings = OpenAiSettings.of(URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/v1"),
                MODEL).withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5));

        Completion c = await(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));

        assertEquals("The capital of France is Paris.", c.text());
        assertTrue(connections.get() >= 2, "reconnected after the reset");
    }

    @Test
    void malformedJsonBody() throws Exception {
        RecordingChatServer server = serve(Reply.ok("{\"id\": \"chatcmpl-1\", \"choices\": [{\"index\": 0, "));
        PolicyException e = failure(new OpenAiCompatiblePolicy(fast(server)).complete(userAsks("hi")));
        assertTrue(e.getMessage().startsWith("malformed JSON from server: "), e.getMessage());
        assertFalse(e.retryable());
        assertEquals(1, server.count());
    }

    @Test
    void htmlInsteadOfJsonIsMalformed() throws Exception {
        RecordingChatServer server = serve(Reply.ok("<html><body>Welcome to nginx!</body></html>"));
        PolicyException e = failure(new OpenAiCompatiblePolicy(fast(server)).complete(userAsks("hi")));
        assertTrue(e.getMessage().startsWith("malformed JSON from server: "), e.getMessage());
        assertTrue(e.getMessage().contains("Welcome to nginx!"), e.getMessage());
        assertTrue(e.getMessage().contains("usually ending in /v1"), e.getMessage());
    }

    @Test
    void missingChoicesAndMissingMessageAreNamed() throws Exception {
        RecordingChatServer server = serve(new RecordingChatServer(List.of(
                Reply.ok("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":0,\"total_tokens\":1}}"),
                Reply.ok("{\"id\":\"chatcmpl-2\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}"),
                Reply.ok("{\"id\":\"chatcmpl-3\",\"object\":\"chat.completion\",\"choices\":[]}"),
                Reply.ok("{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
                        + "\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"arguments\":\"{}\"}}]}}]}")),
                Reply.ok("{\"error\":{\"message\":\"worker died\"}}")));
        OpenAiCompatiblePolicy policy = new OpenAiCompatiblePolicy(fast(server));
        assertTrue(failure(policy.complete(userAsks("a"))).getMessage().contains("no 'choices' field"));
        assertTrue(failure(policy.complete(userAsks("b"))).getMessage().contains("no 'choices[0].message' field"));
        assertTrue(failure(policy.complete(userAsks("c"))).getMessage().contains("empty 'choices'"));
        assertTrue(failure(policy.complete(userAsks("d"))).getMessage()
                .contains("no 'choices[0].message.tool_calls[0].function.name' field"));
        assertTrue(failure(policy.complete(userAsks("e"))).getMessage().contains("worker died"));
    }

    @Test
    void slowServerTimesOut() throws Exception {
        RecordingChatServer server = serve(Reply.ok(fixture("vllm_text.json")).delayed(5_000));
        OpenAiSettings settings = fast(server).withTimeouts(Duration.ofSeconds(1), Duration.ofMillis(300));
        long start = System.nanoTime();
        PolicyException e = failure(new OpenAiCompatiblePolicy(settings).complete(userAsks("hi")));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(e.getMessage().contains("no answer from " + server.baseUrl() + "/chat/completions"), e.getMessage());
        assertTrue(e.getMessage().contains("within 300ms (request-timeout)"), e.getMessage());
        assertTrue(e.retryable());
        assertTrue(ms < 3_000, "gave up after the request timeout, not the server's delay (" + ms + " ms)");
        assertEquals(1, server.count(), "a timeout is not retried: the next attempt would wait as long");
    }

    // ---------------------------------------------------------------- helpers

    private RecordingChatServer serve(Reply... replies) throws IOException {
        return serve(RecordingChatServer.answering(replies));
    }

    private RecordingChatServer serve(RecordingChatServer server) {
        toClose.add(server);
        return server;
    }

    /** Short timeouts and tiny backoffs keep the whole class well under ten seconds. */
    private static OpenAiSettings fast(RecordingChatServer server) {
        return OpenAiSettings.of(server.baseUrl(), MODEL)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))
                .withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5));
    }

    private static CompletionRequest userAsks(String question) {
        return new CompletionRequest("ep", 0, List.of(Message.user(question)), List.of(), "auto", null);
    }

    private static ToolSpec weatherTool() throws IOException {
        return new ToolSpec("get_weather", "Current weather in a city", Json.parse(
                "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"));
    }

    private static ToolSpec calculatorTool() throws IOException {
        return new ToolSpec("calculator", "Evaluates an arithmetic expression", Json.parse(
                "{\"type\":\"object\",\"properties\":{\"expression\":{\"type\":\"string\"}},\"required\":[\"expression\"]}"));
    }

    static String fixture(String name) {
        try (InputStream in = OpenAiCompatiblePolicyTest.class.getResourceAsStream("/openai/" + name)) {
            if (in == null) throw new IllegalStateException("missing test resource openai/" + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static PolicyException failure(CompletionStage<?> stage) throws Exception {
        try {
            Object value = stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
            return fail("expected a failure, got " + value);
        } catch (ExecutionException e) {
            return assertInstanceOf(PolicyException.class, e.getCause(), () -> "cause: " + e.getCause());
        }
    }

    /** Reads one HTTP/1.1 request (head and Content-Length body) off a raw socket. */
    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while ((b = in.read()) != -1) {
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) break;
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        in.readNBytes(length);
    }
}
