package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.policy.embedded.Generation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The events of a stream, token batch by token batch, on a model whose token i is byte i. */
class ChatStreamTest {

    private static final ServedModel BYTES = new ServedModel() {
        @Override
        public String id() {
            return "bytes";
        }

        @Override
        public int[] prompt(List<Message> messages, List<ToolSpec> tools) {
            return new int[] {1, 2, 3};
        }

        @Override
        public byte[] tokenBytes(int id) {
            return id == 300 ? "<|im_end|>".getBytes(StandardCharsets.UTF_8) : new byte[] {(byte) id};
        }

        @Override
        public Runnable generate(int[] prompt, SamplingParams sampling, boolean stream, Listener listener) {
            throw new UnsupportedOperationException();
        }
    };

    private static final String TOOL = "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}}";

    private static ChatStream stream(String fields) {
        ChatRequest r = ChatRequest.parse("{\"model\": \"bytes\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"stream\": true"
                + fields + "}");
        return new ChatStream("chatcmpl-1", 1, "bytes", r, new int[] {1, 2, 3}, BYTES);
    }

    private static int[] ids(byte[] bytes) {
        int[] out = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) out[i] = bytes[i] & 0xff;
        return out;
    }

    private static int[] ids(String text) {
        return ids(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Generation generation(String sampled, String text, FinishReason finish) {
        int[] tokens = ids(sampled);
        int[] withEnd = java.util.Arrays.copyOf(tokens, tokens.length + (finish == FinishReason.STOP ? 1 : 0));
        if (finish == FinishReason.STOP) withEnd[tokens.length] = 300;
        float[] lps = new float[withEnd.length];
        java.util.Arrays.fill(lps, -0.5f);
        return new Generation(1, withEnd, lps, text, finish, 3, 3, 3, 0, 0);
    }

    private static List<JsonNode> data(List<String> events) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String e : events) {
            assertTrue(e.startsWith("data: ") && e.endsWith("\n\n"), e);
            String body = e.substring(6).strip();
            if (!body.equals("[DONE]")) out.add(Json.parse(body));
        }
        return out;
    }

    private static String content(List<JsonNode> chunks) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode c : chunks) for (JsonNode ch : c.path("choices")) sb.append(ch.path("delta").path("content").asText(""));
        return sb.toString();
    }

    @Test
    void textThatMayBeAStopStringIsHeldBackUntilKnown() throws Exception {
        ChatStream s = stream(", \"stop\": [\"END\"]");
        List<String> events = new ArrayList<>(s.open());
        List<String> first = s.tokens(0, ids("abE"), new float[] {-1, -1, -1}, null);
        assertEquals("ab", content(data(first)), "\"E\" may start END");
        events.addAll(first);
        events.addAll(s.tokens(0, ids("N"), new float[] {-1}, null));
        events.addAll(s.done(0, generation("abEND", "ab", FinishReason.STOP)));
        List<JsonNode> chunks = data(events);
        assertEquals("ab", content(chunks));
        assertEquals("assistant", chunks.get(0).get("choices").get(0).get("delta").get("role").asText());
        assertEquals("stop", chunks.get(chunks.size() - 1).get("choices").get(0).get("finish_reason").asText());
        assertEquals("data: [DONE]\n\n", events.get(events.size() - 1));
        assertTrue(s.complete());
    }

    @Test
    void aCharacterSplitAcrossTokensComesWhole() throws Exception {
        ChatStream s = stream("");
        byte[] e = "é".getBytes(StandardCharsets.UTF_8);
        assertTrue(s.tokens(0, new int[] {e[0] & 0xff}, new float[] {-1}, null).isEmpty(), "half a character shows nothing");
        assertEquals("é", content(data(s.tokens(0, new int[] {e[1] & 0xff}, new float[] {-1}, null))));
    }

    @Test
    void logProbsAndTokenIdsComeWithEveryTokenTheStopTokenIncluded() throws Exception {
        ChatStream s = stream(", \"logprobs\": true, \"return_token_ids\": true, \"return_tokens_as_token_ids\": true,"
                + " \"stream_options\": {\"include_usage\": true}");
        List<String> events = new ArrayList<>(s.open());
        assertEquals(3, data(events).get(0).get("prompt_token_ids").size());
        events.addAll(s.tokens(0, ids("ok"), new float[] {-0.5f, -0.5f}, null));
        events.addAll(s.done(0, generation("ok", "ok", FinishReason.STOP)));
        List<Integer> tokenIds = new ArrayList<>();
        List<String> logprobTokens = new ArrayList<>();
        JsonNode usage = null;
        for (JsonNode c : data(events)) {
            if (c.has("usage")) usage = c.get("usage");
            for (JsonNode ch : c.path("choices")) {
                ch.path("token_ids").forEach(t -> tokenIds.add(t.asInt()));
                ch.path("logprobs").path("content").forEach(l -> logprobTokens.add(l.get("token").asText()));
            }
        }
        assertEquals(List.of((int) 'o', (int) 'k', 300), tokenIds);
        assertEquals(List.of("token_id:111", "token_id:107", "token_id:300"), logprobTokens);
        assertEquals(3, usage.get("completion_tokens").asInt());
        assertEquals(3, usage.get("prompt_tokens").asInt());
    }

    @Test
    void aToolCallIsNeverStreamedAsTextButAsToolCallDeltas() throws Exception {
        ChatStream s = stream(", \"tools\": [" + TOOL + "]");
        String text = "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
        List<String> events = new ArrayList<>(s.open());
        int[] all = ids(text);
        for (int t : all) events.addAll(s.tokens(0, new int[] {t}, new float[] {-1}, null));
        events.addAll(s.done(0, generation(text, text, FinishReason.STOP)));
        List<JsonNode> chunks = data(events);
        String streamed = content(chunks);
        assertFalse(streamed.contains("<"), streamed);
        assertEquals("Checking.", streamed.strip());
        List<JsonNode> calls = new ArrayList<>();
        for (JsonNode c : chunks) for (JsonNode ch : c.path("choices")) ch.path("delta").path("tool_calls").forEach(calls::add);
        assertEquals(2, calls.size());
        assertEquals(0, calls.get(0).get("index").asInt());
        assertTrue(calls.get(0).get("id").asText().startsWith("call_"));
        assertEquals("get_weather", calls.get(0).get("function").get("name").asText());
        assertEquals("{\"city\":\"Paris\"}", calls.get(1).get("function").get("arguments").asText());
        assertEquals("tool_calls", chunks.get(chunks.size() - 1).get("choices").get(0).get("finish_reason").asText());
    }

    @Test
    void withTwoChoicesTheStreamEndsAfterBoth() throws Exception {
        ChatStream s = stream(", \"n\": 2");
        assertEquals(2, s.open().size());
        List<String> first = s.done(1, generation("b", "b", FinishReason.LENGTH));
        assertFalse(first.contains("data: [DONE]\n\n"));
        assertFalse(s.complete());
        List<String> second = s.done(0, generation("a", "a", FinishReason.STOP));
        assertEquals("data: [DONE]\n\n", second.get(second.size() - 1));
        assertEquals("length", data(first).get(data(first).size() - 1).get("choices").get(0).get("finish_reason").asText());
        assertEquals(1, data(first).get(0).get("choices").get(0).get("index").asInt());
    }

    @Test
    void anErrorAfterTheStartIsAnErrorEvent() throws Exception {
        ChatStream s = stream("");
        List<String> events = s.failed(ApiError.internal("the embedded model failed: boom"));
        assertEquals("the embedded model failed: boom", data(events).get(0).get("error").get("message").asText());
        assertEquals("data: [DONE]\n\n", events.get(1));
    }

    @Test
    void heldBackIsTheLongestTailThatStartsTheMarker() {
        assertEquals(5, ChatStream.heldBack("ab <tool", "<tool_call>"));
        assertEquals(0, ChatStream.heldBack("ab <x", "<tool_call>"));
        assertEquals(1, ChatStream.heldBack("abE", "END"));
    }
}
