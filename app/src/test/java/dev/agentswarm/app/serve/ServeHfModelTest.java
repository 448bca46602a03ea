package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.cli.ServeCommandAccess;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.testkit.TinyHfModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code swarm serve --model DIR}: a Hugging Face folder served under its name, its own chat template rendering tools and tool turns. */
class ServeHfModelTest {

    @Test
    void aHuggingFaceFolderIsServedWithItsOwnTemplate(@TempDir Path dir) throws Exception {
        Path model = TinyHfModel.write(dir.resolve("tiny-qwen3"), 5);
        Config cfg = SwarmNode.loadConfig(null).withValue("agentswarm.policy.embedded.model-dir",
                ConfigValueFactory.fromAnyRef(model.toString()));
        String id = ServeCommandAccess.modelId(cfg);
        assertEquals("tiny-qwen3", id);
        try (ServingNode serving = ServingNode.start(cfg, id, false, dir.resolve("runs"), "127.0.0.1", 0)) {
            HttpClient http = HttpClient.newHttpClient();
            String body = """
                    {"model": "tiny-qwen3", "max_tokens": 3, "seed": 1, "return_token_ids": true,
                     "tools": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}],
                     "messages": [{"role": "user", "content": "what is 2"},
                                  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                                      "function": {"name": "add", "arguments": "{\\"a\\": 2}"}}]},
                                  {"role": "tool", "tool_call_id": "c1", "content": "4"}]}
                    """;
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(serving.baseUrl() + "/chat/completions"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            JsonNode j = Json.parse(r.body());
            assertEquals("tiny-qwen3", j.get("model").asText());
            // The prompt is the folder's own template's rendering of the conversation, tools and tool turn included.
            int[] expected = serving.policy().chatFormat().prompt(List.of(Message.user("what is 2"),
                    Message.assistant("", List.of(new ToolCall("c1", "add", Json.parse("{\"a\": 2}")))),
                    Message.tool("c1", "add", "4")), List.of(new ToolSpec("add", null, Json.parse("{\"type\": \"object\"}"))));
            JsonNode promptIds = j.get("prompt_token_ids");
            assertEquals(expected.length, promptIds.size());
            for (int i = 0; i < expected.length; i++) assertEquals(expected[i], promptIds.get(i).asInt(), "prompt id " + i);
            assertTrue(j.get("usage").get("completion_tokens").asInt() <= 3);
        }
    }
}
