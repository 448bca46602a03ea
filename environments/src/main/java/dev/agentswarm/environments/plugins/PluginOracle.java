package dev.agentswarm.environments.plugins;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import java.util.List;

/**
 * Writes the gold plan after a short reasoning that names each pick and why it depends on what it
 * does. Noise: chatty filler in the reasoning, and (as "wrong first call", the closest a one-shot
 * plan has) one distractor picked alongside the right plugins, which the reward penalises.
 */
final class PluginOracle implements Oracle {

    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        JsonNode plan;
        try {
            plan = Json.MAPPER.readTree(task.answer());
        } catch (Exception e) {
            throw new IllegalArgumentException("plugin task " + task.id() + " has no readable gold plan", e);
        }
        StringBuilder thought = new StringBuilder();
        if (noise.applies(noise.filler(), task.id(), "filler")) {
            thought.append("Alright, let me carefully read the request and look at every candidate one by one. ");
        }
        for (JsonNode p : plan.get("plugins")) {
            thought.append("The request needs ").append(p.get("name").asText()).append(" (").append(p.get("pluginId").asText()).append(")");
            JsonNode deps = p.get("dependencies");
            thought.append(deps.isEmpty() ? ". " : ", after " + deps.get(0).asText() + ". ");
        }
        if (noise.applies(noise.wrongFirstCall(), task.id(), "wrong")) {
            String distractor = distractor(task);
            if (distractor != null) {
                ObjectNode extra = ((ArrayNode) plan.get("plugins")).addObject();
                extra.put("pluginId", distractor);
                extra.putObject("api_request_parameters").put("query", task.prompt().substring(task.prompt().lastIndexOf(':') + 1).strip());
                extra.put("all_parameters_hydrated", true);
                extra.putArray("dependencies");
                thought.append("Maybe ").append(distractor).append(" helps too.");
            }
        }
        return Step.answer(thought.toString().strip(), plan.toString());
    }

    /** The first candidate that is not part of the answer. */
    private static String distractor(Task task) {
        List<String> correct = List.of(task.metadata().get(PluginTasks.CORRECT).split(","));
        for (String id : task.metadata().get(PluginTasks.CANDIDATES).split(",")) {
            if (!correct.contains(id)) return id;
        }
        return null;
    }
}
