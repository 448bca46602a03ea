package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class TurnCreditTest {

    private static ToolCall call(String name, String args) throws Exception {
        return new ToolCall("c", name, Json.parse(args));
    }

    @Test
    void creditIsTheShareOfExpectedActionsPerformed() throws Exception {
        List<ToolCall> expected = List.of(
                call("get_order", "{\"order_id\": \"#W123\"}"),
                call("cancel_order", "{\"order_id\": \"#W123\", \"reason\": \"no longer needed\"}"),
                call("get_order", "{\"order_id\": \"#W999\"}"));
        List<ToolCall> performed = List.of(
                call("get_order", "{\"order_id\": \"#W123\", \"verbose\": true}"),     // extra argument: still a match
                call("cancel_order", "{\"order_id\": \"#W123\", \"reason\": \"ordered by mistake\"}"), // wrong reason
                call("get_order", "{\"order_id\": \"#W999\"}"));
        assertEquals(2.0 / 3, TurnCredit.actions(expected, performed), 1e-12);
        assertEquals(1.0, TurnCredit.actions(List.of(), performed));
        assertEquals(0.0, TurnCredit.actions(expected, List.of()));
    }

    @Test
    void oneCallMatchesOneExpectedActionOnly() throws Exception {
        ToolCall lookup = call("get_order", "{\"order_id\": \"#W1\"}");
        assertEquals(0.5, TurnCredit.actions(List.of(lookup, lookup), List.of(lookup)), 1e-12);
    }
}
