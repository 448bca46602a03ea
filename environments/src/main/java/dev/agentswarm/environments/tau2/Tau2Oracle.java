package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import java.util.ArrayList;
import java.util.List;

/**
 * The τ² agent that does what the task's gold actions say, in their order: after the user opens, each
 * of the agent's actions is a call through the domain's real tools and each of the user's a message
 * asking the user to do it; then it tells the user what it must communicate. With the scripted user,
 * every task whose reward the gold actions decide scores 1.
 */
final class Tau2Oracle implements Oracle {

    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        JsonNode t;
        try {
            t = Json.MAPPER.readTree(task.metadata().get(Tau2Suite.TASK));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("τ² task " + task.id() + " is not JSON", e);
        }
        List<JsonNode> actions = new ArrayList<>();
        t.path("evaluation_criteria").path("actions").forEach(actions::add);
        int move = Math.max(0, Oracle.moves(conversation) - 1); // the greeting is the agent's first message
        if (move < actions.size()) {
            JsonNode a = actions.get(move);
            if ("user".equals(a.path("requestor").asText())) {
                return Step.answer("", "Please do this on your phone: " + a.path("name").asText() + " " + a.path("arguments"));
            }
            return Step.call("", new ToolCall("gold-" + move, a.path("name").asText(), a.path("arguments")));
        }
        StringBuilder done = new StringBuilder("Done.");
        for (JsonNode info : t.path("evaluation_criteria").path("communicate_info")) done.append(' ').append(info.asText()).append('.');
        return Step.answer("", done.toString());
    }
}
