package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;

/** τ²-bench's mock domain, agent side: tasks of users, created and given a status; and the checks its tasks make. */
final class MockTools extends Toolkit {

    private static final java.util.List<String> FIELDS = java.util.List.of("task_id", "title", "description", "status");

    MockTools(ObjectNode db) {
        super("MockTools", db);
        tool("create_task", Kind.WRITE, "Create a new task for a user.", "user_id: The ID of the user creating the task",
                "title: The title of the task", "description?: Optional description of the task");
        tool("get_users", Kind.READ, "Get all users in the database.");
        tool("update_task_status", Kind.WRITE, "Update the status of a task.", "task_id: The ID of the task to update",
                "status: The new status of the task");
        tool("transfer_to_human_agents", Kind.GENERIC, "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if "
                + " -  the user explicitly asks for a human agent -  given the policy and the available tools, you cannot solve the user's issue.",
                "summary: A summary of the user's issue.");
        helper("assert_number_of_tasks", "user_id", "expected_number");
        helper("assert_task_status", "task_id", "expected_status");
    }

    @Override
    Object run(String name, Args a) {
        return switch (name) {
            case "create_task" -> create(a);
            case "get_users" -> users();
            case "update_task_status" -> {
                ObjectNode task = task(a.get("task_id"));
                task.set("status", a.get("status"));
                yield dump(task, FIELDS);
            }
            case "transfer_to_human_agents" -> "Transfer successful";
            case "assert_number_of_tasks" -> {
                ObjectNode user = user(a.get("user_id"));
                yield user.path("tasks").size() == a.get("expected_number").asInt(-1) && a.get("expected_number").isIntegralNumber();
            }
            case "assert_task_status" -> task(a.get("task_id")).path("status").equals(a.get("expected_status"));
            default -> throw new Tau2Error("Tool '" + name + "' not found.");
        };
    }

    private ObjectNode user(JsonNode id) {
        JsonNode u = id.isTextual() ? db.path("users").get(id.asText()) : null;
        if (u == null || !u.isObject()) throw new Tau2Error("User " + id.asText() + " not found");
        return (ObjectNode) u;
    }

    private ObjectNode task(JsonNode id) {
        JsonNode t = id.isTextual() ? db.path("tasks").get(id.asText()) : null;
        if (t == null || !t.isObject()) throw new Tau2Error("Task " + id.asText() + " not found");
        return (ObjectNode) t;
    }

    private Object create(Args a) {
        ObjectNode user = user(a.get("user_id"));
        String id = "task_" + (db.withObject("/tasks").size() + 1);
        ObjectNode task = Json.MAPPER.createObjectNode();
        task.put("task_id", id);
        task.set("title", a.get("title"));
        task.set("description", a.get("description"));
        task.put("status", "pending");
        db.withObject("/tasks").set(id, task);
        user.withArray("tasks").add(id);
        return dump(task, FIELDS);
    }

    private Object users() {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (JsonNode u : db.path("users")) {
            ObjectNode o = out.addObject();
            o.set("user_id", u.get("user_id"));
            o.set("name", u.get("name"));
            o.set("tasks", u.get("tasks").deepCopy());
        }
        return out;
    }
}
