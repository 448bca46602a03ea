package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.SamplingParams;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ChatRequestTest {

    private static final String USER = "\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]";
    private static final String TOOL = "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}}";

    private static ChatRequest parse(String fields) {
        return ChatRequest.parse("{\"model\": \"small\", " + fields + "}");
    }

    @Test
    void aFullRequestIsRead() {
        ChatRequest r = ChatRequest.parse("""
                {"model": "small", "messages": [
                   {"role": "developer", "content": "Be brief."},
                   {"role": "user", "content": [{"type": "text", "text": "Weather "}, {"type": "text", "text": "in Paris?"}]},
                   {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                       "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]},
                   {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
                 "tools": [%s], "tool_choice": "auto", "temperature": 0.5, "top_p": 0.9, "top_k": -1,
                 "max_completion_tokens": 20, "max_tokens": 99, "stop": ["\\n\\n"], "seed": 7, "n": 2,
                 "logprobs": true, "top_logprobs": 0, "stream": true, "stream_options": {"include_usage": true},
                 "return_token_ids": true, "user": "someone", "parallel_tool_calls": true}
                """.formatted(TOOL));
        assertEquals(4, r.messages().size());
        assertEquals(Role.SYSTEM, r.messages().get(0).role());
        assertEquals("Weather in Paris?", r.messages().get(1).content());
        assertEquals("Paris", r.messages().get(2).toolCalls().get(0).arguments().get("city").asText());
        assertEquals("get_weather", r.messages().get(3).name(), "a tool message is named after the call it answers");
        assertEquals(20, r.maxTokens(), "max_completion_tokens wins over the deprecated max_tokens");
        assertEquals(0, r.topK(), "vLLM's -1 is no top-k cut");
        assertTrue(r.stream() && r.includeUsage() && r.logprobs() && r.returnTokenIds());
        SamplingParams second = r.sampling(1, 1000);
        assertEquals(8L, second.seed(), "choice i samples with seed + i");
        assertEquals(List.of("\n\n"), second.stop());
        assertEquals(20, second.maxTokens());
        assertEquals("Weather in Paris?", r.lastUserMessage());
        assertTrue(r.toolsOffered());
    }

    @Test
    void defaultsAreTheApis() {
        ChatRequest r = parse(USER);
        assertEquals(1.0, r.temperature());
        assertEquals(1.0, r.topP());
        assertEquals(1, r.n());
        assertNull(r.maxTokens());
        assertEquals(512, r.sampling(0, 512).maxTokens(), "no max_tokens: the model's context is the limit");
        assertNull(r.seed());
        assertFalse(r.stream() || r.logprobs() || r.returnTokenIds());
        assertEquals("none", r.toolChoice());
    }

    @Test
    void aNamedToolChoiceOffersOnlyThatTool() {
        String other = TOOL.replace("get_weather", "get_time");
        ChatRequest r = parse(USER + ", \"tools\": [" + TOOL + ", " + other + "], \"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"get_time\"}}");
        assertEquals(List.of("get_time"), r.offeredTools().stream().map(t -> t.name()).toList());
        ChatRequest none = parse(USER + ", \"tools\": [" + TOOL + "], \"tool_choice\": \"none\"");
        assertFalse(none.toolsOffered());
        assertTrue(none.offeredTools().isEmpty());
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
                Arguments.of("{}", "model", "model is required"),
                Arguments.of("{\"model\": 3, " + USER + "}", "model", "must be a string"),
                Arguments.of("{\"model\": \"small\"}", "messages", "messages is required"),
                Arguments.of("{\"model\": \"small\", \"messages\": []}", "messages", "at least one"),
                Arguments.of("{\"model\": \"small\", \"messages\": {}}", "messages", "must be a list"),
                Arguments.of("{\"model\": \"small\", \"messages\": [3]}", "messages[0]", "must be an object"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"content\": \"x\"}]}", "messages[0].role", "is required"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"robot\", \"content\": \"x\"}]}", "messages[0].role", "robot"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"user\"}]}", "messages[0].content", "is required"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"user\", \"content\": 5}]}", "messages[0].content", "string or a list"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image_url\"}]}]}",
                        "messages[0].content[0].type", "only \"text\" parts"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"tool\", \"content\": \"x\"}]}", "messages[0].tool_call_id", "is required"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"tool\", \"tool_call_id\": \"c9\", \"content\": \"x\"}]}",
                        "messages[0].tool_call_id", "answers no tool call"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c\"}]}]}",
                        "messages[0].tool_calls[0].function", "is required"),
                Arguments.of("{\"model\": \"small\", \"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"c\", \"function\": {\"name\": \"f\", \"arguments\": {}}}]}]}",
                        "messages[0].tool_calls[0].function.arguments", "JSON string"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": {}}", "tools", "must be a list"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": [{\"type\": \"code\"}]}", "tools[0].type", "\"function\""),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"a b\"}}]}",
                        "tools[0].function.name", "letters, digits"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": [" + TOOL + ", " + TOOL + "]}", "tools[1].function.name", "two tools"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": 1}}]}",
                        "tools[0].function.parameters", "JSON Schema object"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tool_choice\": \"maybe\"}", "tool_choice", "\"auto\""),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tool_choice\": \"required\"}", "tool_choice", "needs tools"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"tools\": [" + TOOL + "], \"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"nope\"}}}",
                        "tool_choice", "not among"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"temperature\": 2.5}", "temperature", "[0, 2]"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"temperature\": \"hot\"}", "temperature", "must be a number"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"top_p\": 0}", "top_p", "(0, 1]"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"top_k\": 1.5}", "top_k", "integer"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"max_tokens\": 0}", "max_tokens", ">= 1"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"max_completion_tokens\": -3}", "max_completion_tokens", ">= 1"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"stop\": 4}", "stop", "string or a list"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"stop\": [\"a\", \"\"]}", "stop", "stop[1]"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"seed\": 1.5}", "seed", "integer"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"n\": 0}", "n", "[1, 128]"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"logprobs\": \"yes\"}", "logprobs", "true or false"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"top_logprobs\": 21}", "top_logprobs", "[0, 20]"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"top_logprobs\": 2}", "top_logprobs", "needs \"logprobs\": true"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"stream\": 1}", "stream", "true or false"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"stream_options\": {\"include_usage\": true}}", "stream_options", "only allowed with"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"stream\": true, \"stream_options\": {\"include_usage\": 1}}",
                        "stream_options.include_usage", "true or false"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"return_token_ids\": \"y\"}", "return_token_ids", "true or false"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"presence_penalty\": 0.5}", "presence_penalty", "not supported"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"frequency_penalty\": 1}", "frequency_penalty", "not supported"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"logit_bias\": {\"5\": 10}}", "logit_bias", "not supported"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"response_format\": {\"type\": \"json_object\"}}", "response_format", "does not constrain"),
                Arguments.of("{\"model\": \"small\", " + USER + ", \"functions\": []}", "functions", "use tools"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void eachBadFieldIsNamed(String body, String param, String says) {
        ApiError e = assertThrows(ApiError.class, () -> ChatRequest.parse(body));
        assertEquals(400, e.status());
        assertEquals(param, e.param(), e.getMessage());
        assertTrue(e.getMessage().contains(says), e.getMessage());
        assertEquals("invalid_request_error", e.body().get("error").get("type").asText());
        assertEquals(param, e.body().get("error").get("param").asText());
    }

    @Test
    void aBodyThatIsNotJsonSaysWhere() {
        ApiError e = assertThrows(ApiError.class, () -> ChatRequest.parse("{\"model\": \"small\",\n \"messages\": [}"));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertTrue(e.body().get("error").get("param").isNull());
        ApiError array = assertThrows(ApiError.class, () -> ChatRequest.parse("[1]"));
        assertTrue(array.getMessage().contains("JSON object"), array.getMessage());
    }

    @Test
    void zeroPenaltiesAndATextFormatAreAccepted() {
        ChatRequest r = parse(USER + ", \"presence_penalty\": 0, \"frequency_penalty\": 0.0, \"logit_bias\": {}, \"response_format\": {\"type\": \"text\"}");
        assertEquals("small", r.model());
    }
}
