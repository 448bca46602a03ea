package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;

/** τ²-bench's mock domain, user side: the notifications on the user's device, read and dismissed by the user. */
final class MockUserTools extends Toolkit {

    private static final java.util.List<String> FIELDS = java.util.List.of("notification_id", "message", "status", "task_id");

    MockUserTools(ObjectNode db) {
        super("MockUserTools", db);
        tool("check_notifications", Kind.READ, "Check the notifications on your device.");
        tool("dismiss_notification", Kind.WRITE, "Dismiss a notification.", "notification_id: The ID of the notification to dismiss");
        helper("add_notification", "notification_id", "message", "task_id?");
        helper("assert_notification_status", "notification_id", "expected_status");
    }

    @Override
    Object run(String name, Args a) {
        // A user database that initialization data replaced by the agent's (τ² shares one object) has no notifications.
        if (!db.has("notifications") && !name.equals("add_notification")) {
            throw new Tau2Error("'MockDB' object has no attribute 'notifications'");
        }
        return switch (name) {
            case "check_notifications" -> {
                ArrayNode out = Json.MAPPER.createArrayNode();
                for (JsonNode n : db.path("notifications")) out.add(dump((ObjectNode) n, FIELDS));
                yield out;
            }
            case "dismiss_notification" -> {
                ObjectNode n = notification(a.get("notification_id"));
                n.put("status", "read");
                yield "Notification " + a.get("notification_id").asText() + " dismissed";
            }
            case "add_notification" -> {
                ObjectNode n = Json.MAPPER.createObjectNode();
                n.set("notification_id", a.get("notification_id"));
                n.set("message", a.get("message"));
                n.put("status", "unread");
                n.set("task_id", a.get("task_id"));
                db.withObject("/notifications").set(a.get("notification_id").asText(), n);
                yield dump(n, FIELDS);
            }
            case "assert_notification_status" -> notification(a.get("notification_id")).path("status").equals(a.get("expected_status"));
            default -> throw new Tau2Error("Tool '" + name + "' not found.");
        };
    }

    private ObjectNode notification(JsonNode id) {
        JsonNode n = id.isTextual() ? db.path("notifications").get(id.asText()) : null;
        if (n == null || !n.isObject()) throw new Tau2Error("Notification " + id.asText() + " not found");
        return (ObjectNode) n;
    }
}
