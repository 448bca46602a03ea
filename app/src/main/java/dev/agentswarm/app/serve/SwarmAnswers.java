package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import java.util.List;

/**
 * A swarm's answer as a chat completion: the final message is the answer; usage counts the tokens
 * the whole swarm generated. Streamed, the answer comes as one delta when the swarm has finished
 * (the swarm's progress is in its trace, not in the stream).
 */
final class SwarmAnswers {

    private SwarmAnswers() {}

    static ObjectNode completion(String id, long created, SwarmResult r) {
        ObjectNode root = head(id, "chat.completion", created);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", r.answer());
        choice.putNull("logprobs");
        choice.put("finish_reason", "stop");
        root.set("usage", ChatResponses.usage(0, (int) Math.min(Integer.MAX_VALUE, r.metrics().tokens())));
        return root;
    }

    static List<String> events(String id, long created, SwarmResult r, ChatRequest request) {
        ObjectNode first = chunk(id, created);
        delta(first).put("role", "assistant").put("content", r.answer());
        ObjectNode last = chunk(id, created);
        ArrayNode choices = (ArrayNode) last.get("choices");
        ((ObjectNode) choices.get(0)).put("finish_reason", "stop");
        if (request.includeUsage()) {
            ObjectNode usage = head(id, "chat.completion.chunk", created);
            usage.putArray("choices");
            usage.set("usage", ChatResponses.usage(0, (int) Math.min(Integer.MAX_VALUE, r.metrics().tokens())));
            return List.of(ChatResponses.event(first), ChatResponses.event(last), ChatResponses.event(usage), "data: [DONE]\n\n");
        }
        return List.of(ChatResponses.event(first), ChatResponses.event(last), "data: [DONE]\n\n");
    }

    private static ObjectNode head(String id, String object, long created) {
        ObjectNode root = Json.object();
        root.put("id", id).put("object", object).put("created", created).put("model", SwarmChat.MODEL);
        return root;
    }

    private static ObjectNode chunk(String id, long created) {
        ObjectNode root = head(id, "chat.completion.chunk", created);
        ObjectNode c = root.putArray("choices").addObject();
        c.put("index", 0);
        c.putObject("delta");
        c.putNull("logprobs");
        c.putNull("finish_reason");
        return root;
    }

    private static ObjectNode delta(ObjectNode chunk) {
        return (ObjectNode) chunk.get("choices").get(0).get("delta");
    }
}
