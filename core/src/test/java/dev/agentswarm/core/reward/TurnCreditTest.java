package dev.agentswarm.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.reward.TurnCredit.Checks;
import dev.agentswarm.core.reward.TurnCredit.Weights;
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
        assertEquals(new Checks(2, 3), TurnCredit.actionChecks(expected, performed));
        assertEquals(1.0, TurnCredit.actions(List.of(), performed));
        assertEquals(0.0, TurnCredit.actions(expected, List.of()));
    }

    @Test
    void oneCallMatchesOneExpectedActionOnly() throws Exception {
        ToolCall lookup = call("get_order", "{\"order_id\": \"#W1\"}");
        assertEquals(0.5, TurnCredit.actions(List.of(lookup, lookup), List.of(lookup)), 1e-12);
    }

    @Test
    void partialScoreWeighsTheKindsOfChecksTheTaskHas() {
        // actions 4/5 and assertions 1/2, no communication or db checks: (0.5·0.8 + 0.35·0.5) / (0.5 + 0.35)
        double partial = TurnCredit.partialScore(new Checks(4, 5), Checks.NONE, new Checks(1, 2), Checks.NONE, Weights.DEFAULT);
        assertEquals(0.575 / 0.85, partial, 1e-12);
        // every kind: (0.5·0.5 + 0.15·1 + 0.35·0 + 0·1) / 1.0
        assertEquals(0.4, TurnCredit.partialScore(new Checks(1, 2), new Checks(1, 1), new Checks(0, 1), Checks.of(true),
                Weights.DEFAULT), 1e-12);
        assertEquals(0.0, TurnCredit.partialScore(Checks.NONE, Checks.NONE, Checks.NONE, Checks.NONE, Weights.DEFAULT),
                "no checks, no free credit");
        assertEquals(0.0, TurnCredit.partialScore(Checks.NONE, Checks.NONE, Checks.NONE, Checks.of(true), Weights.DEFAULT),
                "only kinds of weight 0");
        assertEquals(1.0, TurnCredit.partialScore(Checks.NONE, Checks.NONE, Checks.NONE, Checks.of(true),
                new Weights(0.5, 0.15, 0.35, 0.2)), 1e-12);
    }

    @Test
    void shapedRewardAddsAlphaTimesThePartialScore() {
        assertEquals(1.1, TurnCredit.shaped(1.0, 0.4, TurnCredit.ALPHA), 1e-12);
        assertEquals(0.2, TurnCredit.shaped(0.0, 0.8, TurnCredit.ALPHA), 1e-12, "a failed task keeps a gradient");
    }

    @Test
    void communicationIsACaseInsensitiveSubstringWithCommasDropped() {
        List<String> said = List.of("Let me check.", "We will REFUND $1,200 to your card.");
        assertEquals(new Checks(2, 3), TurnCredit.communicated(List.of("1200", "refund", "voucher"), said));
        assertEquals(new Checks(0, 1), TurnCredit.communicated(List.of("1,200"), said), "tau2 drops commas from messages only");
        assertEquals(Checks.NONE, TurnCredit.communicated(List.of(), said));
    }

    @Test
    void checksAndWeightsAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> new Checks(3, 2));
        assertThrows(IllegalArgumentException.class, () -> new Checks(-1, 2));
        assertThrows(IllegalArgumentException.class, () -> new Weights(-0.1, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Weights(Double.NaN, 0, 0, 0));
        assertEquals(0.75, new Checks(3, 4).progress(), 1e-12);
    }
}
