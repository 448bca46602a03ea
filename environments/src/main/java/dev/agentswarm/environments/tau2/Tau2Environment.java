package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.PythonText;
import dev.agentswarm.environments.tau2.Tau2Message.Requestor;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One τ² environment: the agent's toolkit and, where the domain has one, the user's, each over its
 * own database. It answers tool calls as τ² does ({@code "Error: ..."} for anything a tool raised, a
 * record as its JSON), sets a task's initial state (its data merged in, its actions run, its message
 * history replayed: writes only) and tells whether two environments hold the same databases.
 */
public final class Tau2Environment {

    final Toolkit agent;
    final Toolkit user;

    Tau2Environment(Toolkit agent, Toolkit user) {
        this.agent = agent;
        this.user = user;
    }

    /** A tool's answer as the caller sees it. */
    public record Response(String content, boolean error) {}

    /** τ²'s get_response: the call run by its requestor's toolkit; any failure becomes {@code "Error: <message>"}. */
    public Response respond(Tau2Message.Call call) {
        try {
            Object result = makeToolCall(call.name(), call.requestor(), call.arguments());
            sync();
            return new Response(toJsonString(result), false);
        } catch (Tau2Error e) {
            return new Response("Error: " + e.getMessage(), true);
        } catch (RuntimeException e) { // what Python would raise on values of the wrong shape
            return new Response("Error: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), true);
        }
    }

    /** τ²'s make_tool_call: no error handling (the gold replay keeps going past a failing action). */
    Object makeToolCall(String name, Requestor requestor, JsonNode arguments) {
        if (requestor == Requestor.USER) {
            if (user == null) throw new Tau2Error("User tools not available");
            return user.useTool(name, arguments);
        }
        return agent.useTool(name, arguments);
    }

    /** Any function of a toolkit by name (a task's setup actions and its assertions). */
    Object runFunction(String envType, String name, JsonNode arguments) {
        Toolkit kit = "user".equals(envType) ? user : agent;
        if (kit == null) throw new Tau2Error("User tools not available");
        Object result = kit.call(name, arguments);
        sync();
        return result;
    }

    /** Whether a task's assertion holds on this environment. */
    boolean holds(JsonNode assertion) {
        Object r = runFunction(assertion.path("env_type").asText("assistant"), assertion.path("func_name").asText(), assertion.path("arguments"));
        if (!(r instanceof Boolean b)) throw new Tau2Error("assertion " + assertion.path("func_name").asText() + " did not return a bool");
        boolean expected = !assertion.has("assert_value") || assertion.get("assert_value").asBoolean(true);
        return b == expected;
    }

    /**
     * τ²'s set_state: the task's data deep-merged into the databases (where a user toolkit has a database,
     * merged agent data is then its database too: τ² shares the one object), its actions run, then its
     * message history replayed: only calls of state-changing tools run again; reads and unknown tools
     * are skipped. A replayed answer that differs from the recorded one is tolerated (as τ²'s
     * evaluate-trajs does): the state change stands either way.
     */
    void setState(JsonNode initialState, List<Tau2Message> history) {
        if (initialState != null && !initialState.isNull()) {
            JsonNode data = initialState.path("initialization_data");
            if (data.path("agent_data").isObject()) {
                agent.db = merged(agent.db, data.get("agent_data"));
                if (user != null) user.db = agent.db;
            }
            if (data.path("user_data").isObject() && user != null) {
                user.db = merged(user.db, data.get("user_data"));
                agent.db = user.db;
            }
            for (JsonNode action : initialState.path("initialization_actions")) {
                runFunction(action.path("env_type").asText("assistant"), action.path("func_name").asText(), action.path("arguments"));
            }
        }
        replay(history);
        sync();
    }

    /**
     * τ²'s sync_tools, which only telecom has: the phone learns from the carrier whether its line is
     * active, may roam and has data left, and a paid payment request marks its bill paid, after which
     * the next bill awaiting payment (if any) becomes the phone's payment request. Not run by the gold
     * actions' replay, as in τ².
     */
    void sync() {
        if (!(agent instanceof TelecomTools carrier) || !(user instanceof TelecomUserTools phone)) return;
        ObjectNode around = phone.surroundings();
        if (!around.path("phone_number").isTextual()) return;
        String number = around.path("phone_number").asText();
        ObjectNode line = carrier.lineByPhone(number);
        around.put("line_active", "Active".equals(line.path("status").asText()));
        around.put("roaming_allowed", line.path("roaming_enabled").asBoolean());
        ObjectNode plan = carrier.plan(line.path("plan_id").asText());
        around.put("mobile_data_usage_exceeded", line.path("data_used_gb").asDouble()
                >= plan.path("data_limit_gb").asDouble() + line.path("data_refueling_gb").asDouble());
        JsonNode request = around.path("payment_request");
        if (request.isObject() && request.path("paid").asBoolean()) {
            carrier.bill(request.path("bill_id").asText()).put("status", "Paid");
            around.putNull("payment_request");
        }
        if (!around.path("payment_request").isObject()) {
            ObjectNode customer = carrier.customerByPhone(number);
            for (JsonNode id : customer.path("bill_ids")) {
                ObjectNode bill = carrier.bill(id.asText());
                if ("Awaiting Payment".equals(bill.path("status").asText())) {
                    ObjectNode r = around.putObject("payment_request");
                    r.put("bill_id", bill.path("bill_id").asText());
                    r.set("amount_due", bill.get("total_due"));
                    r.put("paid", false);
                    break;
                }
            }
        }
    }

    /** Re-runs the calls of state-changing tools in a conversation, agent's and user's alike. */
    void replay(List<Tau2Message> messages) {
        for (Tau2Message m : messages) {
            for (Tau2Message.Call call : m.calls()) {
                Toolkit kit = call.requestor() == Requestor.USER ? user : agent;
                Toolkit.Function f = kit == null ? null : kit.function(call.name());
                if (f == null || !f.tool() || !f.mutates()) continue;
                respond(call);
            }
        }
    }

    /** Whether both databases equal {@code other}'s (τ² compares their hashes; a domain without a user database has none on either side). */
    boolean sameState(Tau2Environment other) {
        return agent.db.equals(other.agent.db) && (user == null ? other.user == null : other.user != null && user.db.equals(other.user.db));
    }

    /**
     * Where this environment's databases differ from {@code agentBase} and {@code userBase} (the domain's
     * pristine ones): each path to a value that changed, appeared or went (then a missing node), objects
     * compared key by key, anything else whole. Two environments grown from the same bases hold the same
     * data exactly when their changes are equal.
     */
    Map<String, JsonNode> changesFrom(JsonNode agentBase, JsonNode userBase) {
        Map<String, JsonNode> out = new java.util.HashMap<>();
        java.util.ArrayList<String> path = new java.util.ArrayList<>();
        path.add("agent");
        diff(path, agentBase, agent.db, out);
        if (user != null) {
            path.set(0, "user");
            diff(path, userBase, user.db, out);
        }
        return out;
    }

    /** The path is built into a string only where something changed: most of a database is walked and found equal. */
    private static void diff(java.util.ArrayList<String> path, JsonNode base, JsonNode now, Map<String, JsonNode> out) {
        if (base == now) return; // the same object: nothing changed
        if (base != null && base.isObject() && now.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = now.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                path.add(e.getKey());
                diff(path, base.get(e.getKey()), e.getValue(), out);
                path.remove(path.size() - 1);
            }
            for (Iterator<String> it = base.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (now.has(k)) continue;
                path.add(k);
                out.put(String.join("\u0000", path), com.fasterxml.jackson.databind.node.MissingNode.getInstance());
                path.remove(path.size() - 1);
            }
        } else if (base == null || !base.equals(now)) {
            out.put(String.join("\u0000", path), now);
        }
    }

    /** addict's deep merge: objects merged key by key, anything else (lists included) replaced. */
    static ObjectNode merged(ObjectNode base, JsonNode patch) {
        ObjectNode out = base.deepCopy();
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode mine = out.get(e.getKey());
            if (mine != null && mine.isObject() && e.getValue().isObject()) out.set(e.getKey(), merged((ObjectNode) mine, e.getValue()));
            else out.set(e.getKey(), e.getValue().deepCopy());
        }
        return out;
    }

    /** τ²'s to_json_str: text as it is; anything else as Python's json.dumps writes it. */
    static String toJsonString(Object result) {
        if (result instanceof String s) return s;
        if (result instanceof Boolean b) return PythonText.dumps(Json.MAPPER.getNodeFactory().textNode(b ? "True" : "False"));
        if (result instanceof JsonNode n) return PythonText.dumps(n);
        return String.valueOf(result);
    }
}
