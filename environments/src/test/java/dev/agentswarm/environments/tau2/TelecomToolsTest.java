package dev.agentswarm.environments.tau2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Telecom tools' answers and effects on τ²'s own databases, checked by hand against τ²'s code. */
class TelecomToolsTest {

    private static Tau2Environment env() {
        Path dir = null;
        for (Path p : List.of(Path.of("../../shared/data/tau2/telecom"), Path.of("../shared/data/tau2/telecom"))) {
            if (Files.isRegularFile(p.resolve("db.toml"))) dir = p;
        }
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        Tau2Environment e = Tau2Domain.load(Tau2Domain.Kind.TELECOM, dir).fresh();
        e.runFunction("user", "set_user_info", read("{\"name\": \"John Smith\", \"phone_number\": \"555-123-2002\"}"));
        return e;
    }

    private static com.fasterxml.jackson.databind.JsonNode read(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String call(Tau2Environment e, Tau2Message.Requestor who, String name, String args) {
        return e.respond(new Tau2Message.Call("c", name, read(args), who)).content();
    }

    private static String user(Tau2Environment e, String name) {
        return call(e, Tau2Message.Requestor.USER, name, "{}");
    }

    @Test
    void thePhoneSimulation() {
        Tau2Environment e = env();
        assertEquals("Status Bar: \uD83D\uDCF6\u00b3 Good | 5G | \uD83D\uDCF1 Data Enabled | \uD83D\uDD0B 80%", user(e, "check_status_bar"));
        e.runFunction("user", "simulate_network_search", read("{}"));
        assertEquals("Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast.", user(e, "run_speed_test"));
        assertTrue(user(e, "toggle_data_saver_mode").startsWith("Data Saver Mode is now ON.\nStatus Bar: "));
        assertEquals("Speed Test Result: 55.00 Mbps (Good). Connection is good for most activities, including HD streaming.", user(e, "run_speed_test"));
        assertTrue(user(e, "toggle_airplane_mode").startsWith("Airplane Mode is now ON.\nStatus Bar: \u2708\ufe0f Airplane Mode"));
        assertEquals("Speed test failed: No Connection.", user(e, "run_speed_test"));
        assertEquals("Your messaging app cannot send MMS messages.", user(e, "can_send_mms"));
        assertTrue(call(e, Tau2Message.Requestor.USER, "set_network_mode_preference", "{\"mode\": \"6g\"}")
                .startsWith("Failed to set network mode: '6g' is not a valid option."));
        assertEquals("Error: Tool 'refuel_data' not found.", user(e, "refuel_data"), "the user has no carrier tools");
    }

    @Test
    void theCarriersToolsAndWhatThePhoneLearnsFromThem() {
        Tau2Environment e = env();
        assertEquals("{\"message\": \"Successfully added 2.0 GB of data for line L1002 for $4.00\", \"new_data_refueling_gb\": \"2.0\", \"charge\": \"4.0\"}",
                call(e, Tau2Message.Requestor.ASSISTANT, "refuel_data", "{\"customer_id\": \"C1001\", \"line_id\": \"L1002\", \"gb_amount\": 2.0}"));
        assertEquals("Error: Refuel amount must be positive",
                call(e, Tau2Message.Requestor.ASSISTANT, "refuel_data", "{\"customer_id\": \"C1001\", \"line_id\": \"L1002\", \"gb_amount\": 0}"));
        assertEquals("Error: Line L9 not found for customer C1001",
                call(e, Tau2Message.Requestor.ASSISTANT, "enable_roaming", "{\"customer_id\": \"C1001\", \"line_id\": \"L9\"}"));
        assertEquals("No payment request has been made.", user(e, "check_payment_request"));
        assertEquals("Payment request sent to the customer for bill B1002",
                call(e, Tau2Message.Requestor.ASSISTANT, "send_payment_request", "{\"customer_id\": \"C1001\", \"bill_id\": \"B1002\"}"));
        assertTrue(user(e, "check_payment_request").startsWith("You have a payment request for bill B1002 of "), "the phone hears of it");
        assertTrue(user(e, "make_payment").startsWith("Payment of "));
        assertTrue(call(e, Tau2Message.Requestor.ASSISTANT, "get_details_by_id", "{\"id\": \"B1002\"}").contains("\"status\": \"Paid\""),
                "the payment reaches the carrier's bill");
        assertEquals("Error: Unknown ID format or type: X1", call(e, Tau2Message.Requestor.ASSISTANT, "get_details_by_id", "{\"id\": \"X1\"}"));
    }
}
