package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.PythonText;
import java.util.ArrayList;
import java.util.List;

/**
 * τ²-bench's telecom agent tools over its database (plans, customers, lines, bills, devices), with τ²'s
 * checks, messages and state changes; "today" is τ²'s fixed 2025-02-25. Numbers the tools return
 * outside a record come back as strings, as τ² returns them.
 */
final class TelecomTools extends Toolkit {

    static final String TODAY = "2025-02-25";

    TelecomTools(ObjectNode db) {
        super("TelecomTools", db);
        tool("get_customer_by_phone", Kind.READ, "Finds a customer by their primary contact or line phone number.", "phone_number: The phone number to search for.");
        tool("get_customer_by_id", Kind.READ, "Retrieves a customer directly by their unique ID.", "customer_id: The unique identifier of the customer.");
        tool("get_customer_by_name", Kind.READ, "Searches for customers by name and DOB. May return multiple matches if names are similar, DOB helps disambiguate.",
                "full_name: The full name of the customer.", "dob: Date of birth for verification, in the format YYYY-MM-DD.");
        tool("get_details_by_id", Kind.READ, "Retrieves the details for a given ID (a line L…, device D…, bill B…, customer C… or plan P…).",
                "id: The ID of the object to retrieve.");
        tool("suspend_line", Kind.WRITE, "Suspends a specific line (max 6 months). Checks: Line status must be Active. Logic: Sets line status to "
                + "Suspended, sets suspension_start_date.", "customer_id: ID of the customer who owns the line.", "line_id: ID of the line to suspend.",
                "reason: Reason for suspension.");
        tool("resume_line", Kind.WRITE, "Resumes a suspended line. Checks: Line status must be Suspended or Pending Activation. Logic: Sets line status "
                + "to Active, clears suspension_start_date.", "customer_id: ID of the customer who owns the line.", "line_id: ID of the line to resume.");
        tool("get_bills_for_customer", Kind.READ, "Retrieves a list of the customer's bills, most recent first.",
                "customer_id: ID of the customer.", "limit?: Maximum number of bills to return.");
        tool("send_payment_request", Kind.WRITE, "Sends a payment request to the customer for a specific bill. Checks: Customer exists, Bill exists and "
                + "belongs to the customer, No other bills are already awaiting payment for this customer. Logic: Sets bill status to AWAITING_PAYMENT "
                + "and notifies customer.", "customer_id: ID of the customer who owns the bill.", "bill_id: ID of the bill to send payment request for.");
        tool("get_data_usage", Kind.READ, "Retrieves current billing cycle data usage for a line, including data refueling amount, data limit, and "
                + "cycle end date.", "customer_id: ID of the customer who owns the line.", "line_id: ID of the line to check usage for.");
        tool("enable_roaming", Kind.WRITE, "Enables international roaming on a line.", "customer_id: ID of the customer who owns the line.",
                "line_id: ID of the line to enable roaming for.");
        tool("disable_roaming", Kind.WRITE, "Disables international roaming on a line.", "customer_id: ID of the customer who owns the line.",
                "line_id: ID of the line to disable roaming for.");
        tool("transfer_to_human_agents", Kind.GENERIC, "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if "
                + " -  the user explicitly asks for a human agent -  given the policy and the available tools, you cannot solve the user's issue.",
                "summary: A summary of the user's issue.");
        tool("refuel_data", Kind.WRITE, "Refuels data for a specific line, adding to the customer's bill. Checks: Line status must be Active, Customer "
                + "owns the line. Logic: Adds data to the line and charges customer based on the plan's refueling rate.",
                "customer_id: ID of the customer who owns the line.", "line_id: ID of the line to refuel data for.", "gb_amount: Amount of data to add in GB.");
        helper("set_data_usage", "customer_id", "line_id", "data_used_gb");
        helper("suspend_line_for_overdue_bill", "customer_id", "line_id", "new_bill_id", "contract_ended");
        helper("assert_data_refueling_amount", "customer_id", "line_id", "expected_amount");
        helper("assert_line_status", "customer_id", "line_id", "expected_status");
        helper("assert_overdue_bill_exists", "customer_id", "overdue_bill_id");
        helper("assert_no_overdue_bill", "overdue_bill_id");
    }

    @Override
    Object run(String name, Args a) {
        return switch (name) {
            case "get_customer_by_phone" -> customerByPhone(a.text("phone_number"));
            case "get_customer_by_id" -> customer(a.text("customer_id")).deepCopy();
            case "get_customer_by_name" -> {
                ArrayNode out = Json.MAPPER.createArrayNode();
                String name0 = a.text("full_name");
                for (JsonNode c : db.withArray("customers")) {
                    if (name0 != null && c.path("full_name").asText().equalsIgnoreCase(name0) && c.path("date_of_birth").equals(a.get("dob"))) {
                        out.add(c.deepCopy());
                    }
                }
                yield out;
            }
            case "get_details_by_id" -> details(a.text("id"));
            case "suspend_line" -> {
                ObjectNode line = targetLine(a);
                if (!"Active".equals(line.path("status").asText())) throw new Tau2Error("Line must be active to suspend");
                line.put("status", "Suspended");
                line.put("suspension_start_date", TODAY);
                ObjectNode out = Json.MAPPER.createObjectNode();
                out.put("message", "Line suspended successfully. $5/month holding fee will apply.");
                out.set("line", line.deepCopy());
                yield out;
            }
            case "resume_line" -> {
                ObjectNode line = targetLine(a);
                String status = line.path("status").asText();
                if (!status.equals("Suspended") && !status.equals("Pending Activation")) throw new Tau2Error("Line must be suspended to resume");
                line.put("status", "Active");
                line.putNull("suspension_start_date");
                ObjectNode out = Json.MAPPER.createObjectNode();
                out.put("message", "Line resumed successfully");
                out.set("line", line.deepCopy());
                yield out;
            }
            case "get_bills_for_customer" -> bills(a);
            case "send_payment_request" -> paymentRequest(a);
            case "get_data_usage" -> {
                ObjectNode line = targetLine(a);
                ObjectNode plan = plan(line.path("plan_id").asText());
                ObjectNode out = Json.MAPPER.createObjectNode();
                out.set("line_id", a.get("line_id"));
                out.put("data_used_gb", pythonStr(line.path("data_used_gb")));
                out.put("data_limit_gb", pythonStr(plan.path("data_limit_gb")));
                out.put("data_refueling_gb", pythonStr(line.path("data_refueling_gb")));
                out.put("cycle_end_date", "2025-02-28");
                yield out;
            }
            case "enable_roaming" -> roaming(a, true);
            case "disable_roaming" -> roaming(a, false);
            case "transfer_to_human_agents" -> "Transfer successful";
            case "refuel_data" -> refuel(a);
            case "set_data_usage" -> {
                ObjectNode line = targetLine(a);
                line.set("data_used_gb", a.get("data_used_gb"));
                yield "Data usage set to " + pythonStr(a.get("data_used_gb")) + " GB for line " + a.text("line_id");
            }
            case "suspend_line_for_overdue_bill" -> overdue(a);
            case "assert_data_refueling_amount" -> Math.abs(targetLine(a).path("data_refueling_gb").asDouble() - a.get("expected_amount").asDouble()) < 1e-6;
            case "assert_line_status" -> targetLine(a).path("status").equals(a.get("expected_status"));
            case "assert_overdue_bill_exists" -> {
                ObjectNode c = customer(a.text("customer_id"));
                String bill = a.text("overdue_bill_id");
                boolean listed = false;
                for (JsonNode b : c.path("bill_ids")) listed |= b.asText().equals(bill);
                if (!listed || !"Overdue".equals(bill(bill).path("status").asText())) throw new Tau2Error("Overdue bill " + bill + " not found");
                yield true;
            }
            case "assert_no_overdue_bill" -> {
                JsonNode b = find("bills", "bill_id", a.text("overdue_bill_id"));
                yield b == null || "Paid".equals(b.path("status").asText());
            }
            default -> throw new Tau2Error("Tool '" + name + "' not found.");
        };
    }

    // ---- lookups -------------------------------------------------------------------------------

    private ObjectNode find(String table, String key, String value) {
        if (value == null) return null;
        for (JsonNode r : db.withArray(table)) if (r.path(key).asText().equals(value)) return (ObjectNode) r;
        return null;
    }

    /** A record by its id, or τ²'s "<What> with ID <id> not found". */
    private ObjectNode require(String table, String key, String id, String what) {
        ObjectNode r = find(table, key, id);
        if (r == null) throw new Tau2Error(what + " with ID " + id + " not found");
        return r;
    }

    ObjectNode customer(String id) {
        return require("customers", "customer_id", id, "Customer");
    }

    ObjectNode line(String id) {
        return require("lines", "line_id", id, "Line");
    }

    ObjectNode plan(String id) {
        return require("plans", "plan_id", id, "Plan");
    }

    ObjectNode bill(String id) {
        return require("bills", "bill_id", id, "Bill");
    }

    ObjectNode lineByPhone(String phone) {
        ObjectNode l = find("lines", "phone_number", phone);
        if (l == null) throw new Tau2Error("Line with phone number " + phone + " not found");
        return l;
    }

    private ObjectNode targetLine(Args a) {
        ObjectNode c = customer(a.text("customer_id"));
        String lineId = a.text("line_id");
        boolean owned = false;
        for (JsonNode l : c.path("line_ids")) owned |= l.asText().equals(lineId);
        if (!owned) throw new Tau2Error("Line " + lineId + " not found for customer " + a.text("customer_id"));
        return line(lineId);
    }

    ObjectNode customerByPhone(String phone) {
        for (JsonNode c : db.withArray("customers")) {
            if (c.path("phone_number").asText().equals(phone)) return (ObjectNode) c;
            for (JsonNode lineId : c.path("line_ids")) {
                ObjectNode l = find("lines", "line_id", lineId.asText());
                if (l != null && l.path("phone_number").asText().equals(phone)) return (ObjectNode) c;
            }
        }
        throw new Tau2Error("Customer with phone number " + phone + " not found");
    }

    private Object details(String id) {
        if (id == null || id.isEmpty()) throw new Tau2Error("Unknown ID format or type: " + id);
        return switch (id.charAt(0)) {
            case 'L' -> line(id).deepCopy();
            case 'D' -> require("devices", "device_id", id, "Device").deepCopy();
            case 'B' -> bill(id).deepCopy();
            case 'C' -> customer(id).deepCopy();
            case 'P' -> plan(id).deepCopy();
            default -> throw new Tau2Error("Unknown ID format or type: " + id);
        };
    }

    private Object bills(Args a) {
        ObjectNode c = customer(a.text("customer_id"));
        List<JsonNode> bills = new ArrayList<>();
        for (JsonNode id : c.path("bill_ids")) {
            JsonNode b = find("bills", "bill_id", id.asText());
            if (b != null) bills.add(b);
        }
        bills.sort((x, y) -> y.path("issue_date").asText().compareTo(x.path("issue_date").asText())); // stable, newest first
        int limit = a.has("limit") && a.get("limit").isIntegralNumber() ? a.get("limit").asInt() : 12;
        int to = limit >= 0 ? Math.min(limit, bills.size()) : Math.max(0, bills.size() + limit);
        ArrayNode out = Json.MAPPER.createArrayNode();
        bills.subList(0, to).forEach(b -> out.add(b.deepCopy()));
        return out;
    }

    private Object paymentRequest(Args a) {
        ObjectNode c = customer(a.text("customer_id"));
        for (JsonNode id : c.path("bill_ids")) {
            JsonNode b = find("bills", "bill_id", id.asText());
            if (b != null && "Awaiting Payment".equals(b.path("status").asText())) throw new Tau2Error("A bill is already awaiting payment for this customer");
        }
        String billId = a.text("bill_id");
        boolean owned = false;
        for (JsonNode id : c.path("bill_ids")) owned |= id.asText().equals(billId);
        if (!owned) throw new Tau2Error("Bill " + billId + " not found for customer " + a.text("customer_id"));
        bill(billId).put("status", "Awaiting Payment");
        return "Payment request sent to the customer for bill " + billId;
    }

    private Object roaming(Args a, boolean on) {
        ObjectNode line = targetLine(a);
        if (line.path("roaming_enabled").asBoolean() == on) return on ? "Roaming was already enabled" : "Roaming was already disabled";
        line.put("roaming_enabled", on);
        return on ? "Roaming enabled successfully" : "Roaming disabled successfully";
    }

    private Object refuel(Args a) {
        ObjectNode line = targetLine(a);
        JsonNode amount = a.get("gb_amount");
        if (!amount.isNumber()) throw new Tau2Error("'<=' not supported between instances of '" + PythonTypes.name(amount) + "' and 'int'");
        if (amount.doubleValue() <= 0) throw new Tau2Error("Refuel amount must be positive");
        ObjectNode plan = plan(line.path("plan_id").asText());
        double price = plan.path("data_refueling_price_per_gb").asDouble();
        double charge = amount.doubleValue() * price;
        line.put("data_refueling_gb", line.path("data_refueling_gb").asDouble() + amount.doubleValue());
        charge(a.text("customer_id"), charge, "Data refueling: " + pythonStr(amount) + " GB at $" + PythonText.floatRepr(price) + "/GB");
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("message", "Successfully added " + pythonStr(amount) + " GB of data for line " + a.text("line_id") + " for $"
                + String.format(java.util.Locale.ROOT, "%.2f", charge));
        out.put("new_data_refueling_gb", PythonText.floatRepr(line.path("data_refueling_gb").asDouble()));
        out.put("charge", PythonText.floatRepr(charge));
        return out;
    }

    /** τ²'s one-time charge: on the customer's first draft bill (the local data always has one). */
    private void charge(String customerId, double amount, String description) {
        ObjectNode c = customer(customerId);
        ObjectNode draft = null;
        for (JsonNode id : c.path("bill_ids")) {
            ObjectNode b = find("bills", "bill_id", id.asText());
            if (b != null && "Draft".equals(b.path("status").asText())) {
                draft = b;
                break;
            }
        }
        if (draft == null) throw new Tau2Error("no draft bill for customer " + customerId + " (τ² would open one with a random id)");
        ObjectNode item = draft.withArray("line_items").addObject();
        item.put("description", description);
        item.put("amount", amount);
        item.put("date", TODAY);
        item.put("item_type", amount < 0 ? "Credit" : "Charge");
        draft.put("total_due", draft.path("total_due").asDouble() + amount);
    }

    private Object overdue(Args a) {
        ObjectNode c = customer(a.text("customer_id"));
        ObjectNode line = line(a.text("line_id"));
        if (!"Active".equals(line.path("status").asText())) throw new Tau2Error("Line must be active to suspend for an overdue bill");
        for (JsonNode id : c.path("bill_ids")) {
            JsonNode b = find("bills", "bill_id", id.asText());
            if (b != null && "Overdue".equals(b.path("status").asText())) throw new Tau2Error("Customer already has an overdue bill");
        }
        double price = plan(line.path("plan_id").asText()).path("price_per_month").asDouble();
        ObjectNode bill = db.withArray("bills").addObject();
        bill.set("bill_id", a.get("new_bill_id"));
        bill.put("customer_id", a.text("customer_id"));
        bill.put("period_start", "2025-01-01");
        bill.put("period_end", "2025-01-31");
        bill.put("issue_date", "2025-01-01");
        bill.put("total_due", price);
        bill.put("due_date", "2025-01-15");
        ObjectNode item = bill.putArray("line_items").addObject();
        item.put("description", "Charge for line " + a.text("line_id"));
        item.put("amount", price);
        item.put("date", TODAY);
        item.put("item_type", "Charge");
        bill.put("status", "Overdue");
        c.withArray("bill_ids").add(a.get("new_bill_id"));
        line.put("status", "Suspended");
        line.put("suspension_start_date", TODAY);
        if (a.get("contract_ended").asBoolean(false)) line.put("contract_end_date", "2025-01-31");
        return "Line " + a.text("line_id") + " suspended for the overdue bill " + a.text("new_bill_id");
    }

    /** Python's {@code str(x)} of a number as the tools print it. */
    static String pythonStr(JsonNode v) {
        if (v.isIntegralNumber()) return v.bigIntegerValue().toString();
        if (v.isNumber()) return PythonText.floatRepr(v.doubleValue());
        return v.asText();
    }
}
