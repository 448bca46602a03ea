package dev.agentswarm.environments.tau2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** τ²'s reward on right, partly right and wrong conversations about the hand-made store of {@link RetailToolsTest}. */
class Tau2EvaluatorTest {

    private static final String TASK = """
            {"id": "t", "evaluation_criteria": {
              "actions": [{"action_id": "a", "name": "get_order_details", "arguments": {"order_id": "#W1"}},
                          {"action_id": "b", "name": "cancel_pending_order", "arguments": {"order_id": "#W1", "reason": "no longer needed"}}],
              "communicate_info": ["150.25"], "reward_basis": ["DB", "COMMUNICATE"]}}
            """;

    private static JsonNode read(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Supplier<Tau2Environment> FRESH = RetailToolsTest::env;

    /** A conversation: each element a call "name {args}" the agent made, or a text it said. */
    private static List<Tau2Message> conversation(String... steps) {
        Tau2Environment live = FRESH.get();
        List<Tau2Message> out = new ArrayList<>();
        int n = 0;
        for (String s : steps) {
            int brace = s.indexOf(" {");
            if (brace > 0 && s.substring(0, brace).matches("[a-z_]+")) { // "tool_name {arguments}"
                Tau2Message.Call call = new Tau2Message.Call("c" + n++, s.substring(0, brace).strip(), read(s.substring(brace + 1)), Tau2Message.Requestor.ASSISTANT);
                out.add(Tau2Message.calls(Tau2Message.Role.ASSISTANT, List.of(call)));
                Tau2Environment.Response r = live.respond(call);
                out.add(Tau2Message.tool(call.id(), r.content(), Tau2Message.Requestor.ASSISTANT, r.error()));
            } else {
                out.add(Tau2Message.text(Tau2Message.Role.ASSISTANT, s));
            }
        }
        return out;
    }

    private static Tau2Evaluator.Result grade(boolean stopped, String... steps) {
        return Tau2Evaluator.evaluate(read(TASK), conversation(steps), stopped, FRESH);
    }

    /** Changes from the pristine databases tell two environments apart exactly as their equality does. */
    @Test
    void changesFromThePristineDatabasesTellEnvironmentsApartAsEqualityDoes() {
        Tau2Environment base = FRESH.get();
        Tau2Environment a = FRESH.get();
        Tau2Environment b = FRESH.get();
        assertEquals(java.util.Map.of(), a.changesFrom(base.agent.db, null));
        String cancel = "{\"order_id\": \"#W1\", \"reason\": \"no longer needed\"}";
        a.respond(new Tau2Message.Call("x", "cancel_pending_order", read(cancel), Tau2Message.Requestor.ASSISTANT));
        assertFalse(a.changesFrom(base.agent.db, null).equals(b.changesFrom(base.agent.db, null)), "a write is a change");
        b.respond(new Tau2Message.Call("y", "cancel_pending_order", read(cancel), Tau2Message.Requestor.ASSISTANT));
        assertEquals(a.changesFrom(base.agent.db, null), b.changesFrom(base.agent.db, null), "the same write, the same changes");
        assertTrue(a.sameState(b));
        for (JsonNode v : List.of(Json.MAPPER.getNodeFactory().textNode("1"), Json.MAPPER.getNodeFactory().numberNode(1.0))) {
            a.agent.db.put("extra", 1);
            b.agent.db.set("extra", v);
            assertFalse(a.changesFrom(base.agent.db, null).equals(b.changesFrom(base.agent.db, null)), "1 is not " + v);
            assertFalse(a.sameState(b));
        }
        b.agent.db.remove("extra");
        a.agent.db.remove("extra");
        ((com.fasterxml.jackson.databind.node.ObjectNode) b.agent.db.get("orders")).remove("#W1");
        assertFalse(a.changesFrom(base.agent.db, null).equals(b.changesFrom(base.agent.db, null)), "a record gone is a change");
    }

    private static final String CANCEL = "cancel_pending_order {\"order_id\": \"#W1\", \"reason\": \"no longer needed\"}";

    @Test
    void theRightConversationEarnsOne() {
        Tau2Evaluator.Result r = grade(true, "get_order_details {\"order_id\": \"#W1\"}", CANCEL, "Done: your gift card balance is now 150.25.");
        assertEquals(1.0, r.reward());
        assertEquals(1.0, r.components().get("db"));
        assertEquals(1.0, r.components().get("action"));
    }

    @Test
    void aWrongMissingOrExtraWriteFailsTheDatabase() {
        Tau2Evaluator.Result wrong = grade(true, "cancel_pending_order {\"order_id\": \"#W1\", \"reason\": \"ordered by mistake\"}", "150.25 refunded.");
        assertEquals(0.0, wrong.components().get("db"));
        assertEquals(0.0, wrong.reward());
        Tau2Evaluator.Result missing = grade(true, "get_order_details {\"order_id\": \"#W1\"}", "Your balance would be 150.25.");
        assertEquals(0.0, missing.components().get("db"));
        Tau2Evaluator.Result extra = grade(true, CANCEL, "modify_user_address {\"user_id\": \"ann_lee_1\", \"address1\": \"2 Oak\", \"address2\": \"\","
                + " \"city\": \"Dallas\", \"state\": \"TX\", \"country\": \"USA\", \"zip\": \"75201\"}", "150.25 back on your card.");
        assertEquals(0.0, extra.components().get("db"));
        Tau2Evaluator.Result failedWrite = grade(true, "cancel_pending_order {\"order_id\": \"#W2\", \"reason\": \"no longer needed\"}", CANCEL, "150.25.");
        assertEquals(1.0, failedWrite.reward(), "a write that failed changed nothing");
    }

    @Test
    void missingInformationFailsCommunicateAndOnlyAStopEarnsAnything() {
        Tau2Evaluator.Result untold = grade(true, CANCEL, "Your order is cancelled.");
        assertEquals(1.0, untold.components().get("db"));
        assertEquals(0.0, untold.components().get("communicate"));
        assertEquals(0.0, untold.reward());
        assertEquals(1.0, grade(true, CANCEL, "Refund: 1,50.25? no: 150.25").reward(), "commas are removed from the message");
        assertEquals(0.0, grade(false, CANCEL, "150.25").reward(), "a conversation cut by a limit earns 0");
    }

    @Test
    void actionsMatchOnTheCallsArgumentsAndAJudgeGatedTaskIsLeftOpen() {
        JsonNode gold = read("{\"name\": \"find_user_id_by_email\", \"arguments\": {\"email\": \"ann@example.com\"}}");
        assertEquals(true, Tau2Evaluator.matches(gold, new Tau2Message.Call("c", "find_user_id_by_email", read("{}"), Tau2Message.Requestor.ASSISTANT)),
                "an argument the call leaves out is not compared");
        assertEquals(false, Tau2Evaluator.matches(gold, new Tau2Message.Call("c", "find_user_id_by_email",
                read("{\"email\": \"ann@example.com\", \"x\": 1}"), Tau2Message.Requestor.ASSISTANT)), "an argument the gold lacks is");
        JsonNode any = read("{\"name\": \"transfer_to_human_agents\", \"arguments\": {\"summary\": \"s\"}, \"compare_args\": []}");
        assertEquals(true, Tau2Evaluator.matches(any, new Tau2Message.Call("c", "transfer_to_human_agents", read("{\"summary\": \"other\"}"),
                Tau2Message.Requestor.ASSISTANT)));
        assertEquals(true, dev.agentswarm.core.json.PythonEquality.equal(read("1"), read("1.0")));

        JsonNode judged = read("{\"id\": \"j\", \"evaluation_criteria\": {\"actions\": [], \"nl_assertions\": [\"The agent was polite\"],"
                + " \"reward_basis\": [\"DB\", \"NL_ASSERTION\"]}}");
        Tau2Evaluator.Result r = Tau2Evaluator.evaluate(judged, conversation("Hello."), true, FRESH);
        assertNull(r.reward(), "no judge: the reward is not given");
        assertEquals(java.util.Set.of("nl_assertion"), r.skipped());
        Tau2Evaluator.Result failed = Tau2Evaluator.evaluate(judged, conversation(CANCEL), true, FRESH);
        assertEquals(0.0, failed.reward(), "a database that fails decides without the judge");
    }
}
