package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.agentswarm.core.json.Json;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * `swarm run --endpoint` end to end against a local chat-completions server: the native OpenAI
 * tool-call format, the calculator, and the tool result sent back as a {@code tool} message.
 */
class RunAgainstServerTest {

    private HttpServer server;
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            JsonNode body = Json.parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            requests.add(body);
            JsonNode last = body.get("messages").get(body.get("messages").size() - 1);
            String message = last.get("role").asText().equals("tool")
                    ? "{\"role\":\"assistant\",\"content\":\"The answer is " + last.get("content").asText() + "\"}"
                    : "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                      + "\"function\":{\"name\":\"calculator\",\"arguments\":\"{\\\"expression\\\": \\\"(17 + 4) * 3 ^ 2\\\"}\"}}]}";
            String finish = last.get("role").asText().equals("tool") ? "stop" : "tool_calls";
            byte[] out = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                    + "\"message\":" + message + ",\"finish_reason\":\"" + finish + "\"}],"
                    + "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":12,\"total_tokens\":62}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void oneEpisodeWithNativeToolCalls() throws Exception {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
        CliTest.Result r = CliTest.swarm("run", "--single", "What is (17 + 4) * 3 ^ 2?", "--endpoint", url, "--model", "m",
                "--format", "openai", "--json");
        assertEquals(0, r.exit(), r.out() + r.err());
        JsonNode j = r.json();
        assertEquals("The answer is 189", j.get("final_answer").asText());
        assertEquals(1, j.get("tool_successes").asInt());
        assertEquals(100, j.get("prompt_tokens").asInt());

        assertEquals(2, requests.size());
        JsonNode first = requests.get(0);
        assertEquals("m", first.get("model").asText());
        assertEquals("calculator", first.get("tools").get(0).get("function").get("name").asText(), "tools travel natively");
        JsonNode second = requests.get(1).get("messages");
        JsonNode assistant = second.get(second.size() - 2);
        assertTrue(assistant.get("tool_calls").get(0).get("function").get("arguments").isTextual(), "arguments go back as a JSON string");
        JsonNode tool = second.get(second.size() - 1);
        assertEquals("call_1", tool.get("tool_call_id").asText());
        assertEquals("189", tool.get("content").asText());
    }

    @Test
    void unreachableServerIsAPolicyErrorThatNamesTheUrl() throws Exception {
        int port = server.getAddress().getPort();
        server.stop(0);
        CliTest.Result r = CliTest.swarm("run", "--single", "x", "--endpoint", "http://127.0.0.1:" + port + "/v1", "--model", "m", "--json");
        assertEquals(1, r.exit());
        JsonNode j = r.json();
        assertEquals("POLICY_ERROR", j.get("stop_reason").asText());
        assertTrue(j.get("error").asText().contains("127.0.0.1:" + port), j.get("error").asText());
    }
}
