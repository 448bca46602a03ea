package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** τ²'s message JSON (a task's message_history) as {@link Tau2Message}s. */
final class Tau2Messages {

    private Tau2Messages() {}

    static List<Tau2Message> parse(JsonNode messages) {
        List<Tau2Message> out = new ArrayList<>();
        if (!messages.isArray()) return out;
        for (JsonNode m : messages) {
            String role = m.path("role").asText();
            if (role.equals("tool")) {
                out.add(Tau2Message.tool(m.path("id").asText(), m.path("content").asText(null),
                        Tau2Message.Requestor.parse(m.path("requestor").asText("assistant")), m.path("error").asBoolean(false)));
                continue;
            }
            Tau2Message.Role r = role.equals("user") ? Tau2Message.Role.USER : Tau2Message.Role.ASSISTANT;
            List<Tau2Message.Call> calls = new ArrayList<>();
            for (JsonNode c : m.path("tool_calls")) {
                calls.add(new Tau2Message.Call(c.path("id").asText(""), c.path("name").asText(), c.path("arguments"),
                        Tau2Message.Requestor.parse(c.path("requestor").asText(r == Tau2Message.Role.USER ? "user" : "assistant"))));
            }
            out.add(new Tau2Message(r, m.path("content").isTextual() ? m.get("content").asText() : null, calls, null, null, false));
        }
        return out;
    }
}
