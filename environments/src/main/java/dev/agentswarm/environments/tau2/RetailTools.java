package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.PythonText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * τ²-bench's retail agent tools over its database ({@code products}, {@code users}, {@code orders}), with
 * τ²'s checks, error messages and state changes, its rounding ({@code round(x, 2)} half-even on the exact
 * binary value) and its one known slip kept: modifying several items of a pending order gives every
 * modified item the price and options of the last new item, as τ²'s own tool does (its gold actions
 * and so its expected databases depend on it). Results are τ²'s: a record as its full JSON, in its
 * fields' order with unset ones as null; text as it is.
 */
final class RetailTools extends Toolkit {

    private static final String ORDER_ID = "order_id: The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.";
    private static final String PAYMENT = "payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.";

    RetailTools(ObjectNode db) {
        super("RetailTools", db);
        tool("calculate", Kind.GENERIC, "Calculate the result of a mathematical expression.",
                "expression: The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.");
        tool("cancel_pending_order", Kind.WRITE, "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. "
                + "The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, "
                + "the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card "
                + "balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. "
                + "The function returns the order details after the cancellation.",
                ORDER_ID, "reason: The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.");
        tool("exchange_delivered_order_items", Kind.WRITE, "Exchange items in a delivered order to new items of the same product type. For a delivered "
                + "order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user "
                + "confirmation (yes/no) to proceed.", ORDER_ID,
                "item_ids: The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.",
                "new_item_ids: The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
                PAYMENT);
        tool("find_user_id_by_name_zip", Kind.READ, "Find user id by first name, last name, and zip code. If the user is not found, the function will "
                + "return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.",
                "first_name: The first name of the customer, such as 'John'.", "last_name: The last name of the customer, such as 'Doe'.",
                "zip: The zip code of the customer, such as '12345'.");
        tool("find_user_id_by_email", Kind.READ, "Find user id by email. If the user is not found, the function will return an error message.",
                "email: The email of the user, such as 'something@example.com'.");
        tool("get_order_details", Kind.READ, "Get the status and details of an order.", ORDER_ID);
        tool("get_product_details", Kind.READ, "Get the inventory details of a product.",
                "product_id: The product id, such as '6086499569'. Be careful the product id is different from the item id.");
        tool("get_item_details", Kind.READ, "Get the inventory details of an item.",
                "item_id: The item id, such as '6086499569'. Be careful the item id is different from the product id.");
        tool("get_user_details", Kind.READ, "Get the details of a user, including their orders.", "user_id: The user id, such as 'sara_doe_496'.");
        tool("list_all_product_types", Kind.READ, "List the name and product id of all product types. Each product type has a variety of different items "
                + "with unique item ids and options. There are only 50 product types in the store.");
        tool("modify_pending_order_address", Kind.WRITE, "Modify the shipping address of a pending order. The agent needs to explain the modification "
                + "detail and ask for explicit user confirmation (yes/no) to proceed.", ORDER_ID, "address1: The first line of the address, such as '123 Main St'.",
                "address2: The second line of the address, such as 'Apt 1' or ''.", "city: The city, such as 'San Francisco'.",
                "state: The state, such as 'CA'.", "country: The country, such as 'USA'.", "zip: The zip code, such as '12345'.");
        tool("modify_pending_order_items", Kind.WRITE, "Modify items in a pending order to new items of the same product type. For a pending order, this "
                + "function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
                ORDER_ID, "item_ids: The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.",
                "new_item_ids: The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
                PAYMENT);
        tool("modify_pending_order_payment", Kind.WRITE, "Modify the payment method of a pending order. The agent needs to explain the modification detail "
                + "and ask for explicit user confirmation (yes/no) to proceed.", ORDER_ID,
                "payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.");
        tool("modify_user_address", Kind.WRITE, "Modify the default address of a user. The agent needs to explain the modification detail and ask for "
                + "explicit user confirmation (yes/no) to proceed.", "user_id: The user id, such as 'sara_doe_496'.",
                "address1: The first line of the address, such as '123 Main St'.", "address2: The second line of the address, such as 'Apt 1' or ''.",
                "city: The city, such as 'San Francisco'.", "state: The state, such as 'CA'.", "country: The country, such as 'USA'.",
                "zip: The zip code, such as '12345'.");
        tool("return_delivered_order_items", Kind.WRITE, "Return some items of a delivered order. The order status will be changed to 'return requested'. "
                + "The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up "
                + "email for how and where to return the item.", ORDER_ID,
                "item_ids: The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.",
                "payment_method_id: The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.");
        tool("transfer_to_human_agents", Kind.GENERIC, "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if "
                + " -  the user explicitly asks for a human agent -  given the policy and the available tools, you cannot solve the user's issue.",
                "summary: A summary of the user's issue.");
    }

    @Override
    Object run(String name, Args a) {
        return switch (name) {
            case "calculate" -> PythonArithmetic.calculate(a.get("expression"));
            case "cancel_pending_order" -> cancel(a);
            case "exchange_delivered_order_items" -> exchange(a);
            case "find_user_id_by_name_zip" -> findByNameZip(a);
            case "find_user_id_by_email" -> findByEmail(a);
            case "get_order_details" -> RetailRecords.order(order(a.get("order_id")));
            case "get_product_details" -> product(a.get("product_id"));
            case "get_item_details" -> item(a.get("item_id"));
            case "get_user_details" -> RetailRecords.user(user(a.get("user_id")));
            case "list_all_product_types" -> listProducts();
            case "modify_pending_order_address" -> modifyOrderAddress(a);
            case "modify_pending_order_items" -> modifyItems(a);
            case "modify_pending_order_payment" -> modifyPayment(a);
            case "modify_user_address" -> modifyUserAddress(a);
            case "return_delivered_order_items" -> returnItems(a);
            case "transfer_to_human_agents" -> "Transfer successful";
            default -> throw new Tau2Error("Tool '" + name + "' not found.");
        };
    }

    // ---- lookups -------------------------------------------------------------------------------

    private ObjectNode lookup(String table, JsonNode key, String notFound) {
        JsonNode hit = key.isTextual() ? db.path(table).get(key.asText()) : null;
        if (hit == null || !hit.isObject()) throw new Tau2Error(notFound);
        return (ObjectNode) hit;
    }

    private ObjectNode order(JsonNode id) {
        return lookup("orders", id, "Order not found");
    }

    private ObjectNode user(JsonNode id) {
        return lookup("users", id, "User not found");
    }

    private ObjectNode product(JsonNode id) {
        return lookup("products", id, "Product not found");
    }

    private ObjectNode variant(String productId, JsonNode itemId) {
        ObjectNode p = lookup("products", productId == null ? db.nullNode() : db.textNode(productId), "Product not found");
        JsonNode v = itemId.isTextual() ? p.path("variants").get(itemId.asText()) : null;
        if (v == null || !v.isObject()) throw new Tau2Error("Variant not found");
        return (ObjectNode) v;
    }

    private ObjectNode item(JsonNode id) {
        for (JsonNode p : db.path("products")) {
            JsonNode v = id.isTextual() ? p.path("variants").get(id.asText()) : null;
            if (v != null && v.isObject()) return (ObjectNode) v;
        }
        throw new Tau2Error("Item not found");
    }

    private ObjectNode paymentMethod(ObjectNode order, JsonNode id) {
        ObjectNode user = lookup("users", order.path("user_id"), "User not found");
        JsonNode m = id.isTextual() ? user.path("payment_methods").get(id.asText()) : null;
        if (m == null || !m.isObject()) throw new Tau2Error("Payment method not found");
        return (ObjectNode) m;
    }

    private static boolean giftCard(JsonNode method) {
        return "gift_card".equals(method.path("source").asText());
    }

    private Object findByNameZip(Args a) {
        String first = lower(a, "first_name");
        String last = lower(a, "last_name");
        JsonNode zip = a.get("zip");
        for (JsonNode u : db.path("users")) {
            if (u.path("name").path("first_name").asText().toLowerCase(java.util.Locale.ROOT).equals(first)
                    && u.path("name").path("last_name").asText().toLowerCase(java.util.Locale.ROOT).equals(last)
                    && zip.isTextual() && u.path("address").path("zip").asText().equals(zip.asText())) {
                return u.path("user_id").asText();
            }
        }
        throw new Tau2Error("User not found");
    }

    private Object findByEmail(Args a) {
        String email = lower(a, "email");
        for (JsonNode u : db.path("users")) {
            if (u.path("email").asText().toLowerCase(java.util.Locale.ROOT).equals(email)) return u.path("user_id").asText();
        }
        throw new Tau2Error("User not found");
    }

    /** Python's {@code s.lower()}, which fails on anything but a string. */
    private static String lower(Args a, String name) {
        JsonNode v = a.get(name);
        if (!v.isTextual()) throw new Tau2Error("'" + PythonTypes.name(v) + "' object has no attribute 'lower'");
        return v.asText().toLowerCase(java.util.Locale.ROOT);
    }

    private Object listProducts() {
        Map<String, String> byName = new TreeMap<>();
        for (JsonNode p : db.path("products")) byName.put(p.path("name").asText(), p.path("product_id").asText());
        ObjectNode out = Json.MAPPER.createObjectNode();
        byName.forEach(out::put);
        return PythonText.dumps(out);
    }

    // ---- changes -------------------------------------------------------------------------------

    private Object cancel(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!"pending".equals(order.path("status").asText())) throw new Tau2Error("Non-pending order cannot be cancelled");
        String reason = a.text("reason");
        if (!"no longer needed".equals(reason) && !"ordered by mistake".equals(reason)) throw new Tau2Error("Invalid reason");
        List<ObjectNode> refunds = new ArrayList<>();
        for (JsonNode p : order.withArray("payment_history")) {
            ObjectNode refund = Json.MAPPER.createObjectNode();
            refund.put("transaction_type", "refund");
            refund.set("amount", p.get("amount"));
            refund.set("payment_method_id", p.get("payment_method_id"));
            refunds.add(refund);
            ObjectNode method = paymentMethod(order, p.path("payment_method_id"));
            if (giftCard(method)) method.put("balance", round2(method.path("balance").doubleValue() + p.path("amount").doubleValue()));
        }
        order.put("status", "cancelled");
        order.put("cancel_reason", reason);
        refunds.forEach(order.withArray("payment_history")::add);
        return RetailRecords.order(order);
    }

    /** Each id's count in {@code ids} must not exceed its count among the order's items. */
    private static void countsWithin(ObjectNode order, List<String> ids, java.util.function.Function<String, String> error) {
        List<String> have = new ArrayList<>();
        for (JsonNode i : order.path("items")) have.add(i.path("item_id").asText());
        for (String id : ids) {
            long want = ids.stream().filter(id::equals).count();
            long got = have.stream().filter(id::equals).count();
            if (want > got) throw new Tau2Error(error.apply(id));
        }
    }

    private static List<String> ids(Args a, String name) {
        JsonNode v = a.get(name);
        if (!v.isArray()) throw new Tau2Error("'" + PythonTypes.name(v) + "' object is not iterable");
        List<String> out = new ArrayList<>();
        v.forEach(x -> out.add(x.isTextual() ? x.asText() : x.toString()));
        return out;
    }

    private static ObjectNode firstItem(ObjectNode order, String itemId) {
        for (JsonNode i : order.path("items")) if (i.path("item_id").asText().equals(itemId)) return (ObjectNode) i;
        throw new Tau2Error("Item " + itemId + " not found");
    }

    private Object exchange(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!"delivered".equals(order.path("status").asText())) throw new Tau2Error("Non-delivered order cannot be exchanged");
        List<String> items = ids(a, "item_ids");
        List<String> fresh = ids(a, "new_item_ids");
        countsWithin(order, items, id -> "Number of " + id + " not found.");
        if (items.size() != fresh.size()) throw new Tau2Error("The number of items to be exchanged should match.");
        double diff = 0;
        for (int i = 0; i < items.size(); i++) {
            ObjectNode item = firstItem(order, items.get(i));
            ObjectNode variant = variant(item.path("product_id").asText(), db.textNode(fresh.get(i)));
            if (!variant.path("available").asBoolean()) throw new Tau2Error("New item " + fresh.get(i) + " not found or available");
            diff += variant.path("price").doubleValue() - item.path("price").doubleValue();
        }
        JsonNode roundedDiff = items.isEmpty() ? db.numberNode(0) : db.numberNode(round2(diff)); // Python's round(0, 2) of the int 0 stays an int
        ObjectNode method = paymentMethod(order, a.get("payment_method_id"));
        if (giftCard(method) && method.path("balance").doubleValue() < roundedDiff.doubleValue()) {
            throw new Tau2Error("Insufficient gift card balance to pay for the price difference");
        }
        order.put("status", "exchange requested");
        order.set("exchange_items", sorted(items));
        order.set("exchange_new_items", sorted(fresh));
        order.set("exchange_payment_method_id", a.get("payment_method_id"));
        order.set("exchange_price_difference", roundedDiff);
        return RetailRecords.order(order);
    }

    private Object modifyOrderAddress(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!order.path("status").asText().contains("pending")) throw new Tau2Error("Non-pending order cannot be modified");
        order.set("address", address(a));
        return RetailRecords.order(order);
    }

    private static ObjectNode address(Args a) {
        ObjectNode address = Json.MAPPER.createObjectNode();
        for (String f : List.of("address1", "address2", "city", "country", "state", "zip")) address.set(f, a.get(f));
        return address;
    }

    private Object modifyItems(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!"pending".equals(order.path("status").asText())) throw new Tau2Error("Non-pending order cannot be modified");
        List<String> items = ids(a, "item_ids");
        List<String> fresh = ids(a, "new_item_ids");
        countsWithin(order, items, id -> id + " not found");
        if (items.size() != fresh.size()) throw new Tau2Error("The number of items to be exchanged should match");
        double diff = 0;
        ObjectNode lastVariant = null;
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).equals(fresh.get(i))) throw new Tau2Error("The new item id should be different from the old item id");
            ObjectNode item = firstItem(order, items.get(i));
            ObjectNode variant = variant(item.path("product_id").asText(), db.textNode(fresh.get(i)));
            if (!variant.path("available").asBoolean()) throw new Tau2Error("New item " + fresh.get(i) + " not found or available");
            diff += variant.path("price").doubleValue() - item.path("price").doubleValue();
            lastVariant = variant;
        }
        ObjectNode method = paymentMethod(order, a.get("payment_method_id"));
        if (giftCard(method) && method.path("balance").doubleValue() < diff) {
            throw new Tau2Error("Insufficient gift card balance to pay for the new item");
        }
        ObjectNode payment = order.withArray("payment_history").addObject();
        payment.put("transaction_type", diff > 0 ? "payment" : "refund");
        payment.set("amount", items.isEmpty() ? db.numberNode(0) : db.numberNode(Math.abs(diff)));
        payment.set("payment_method_id", a.get("payment_method_id"));
        if (giftCard(method)) method.put("balance", round2(method.path("balance").doubleValue() - diff));
        for (int i = 0; i < items.size(); i++) {
            ObjectNode item = firstItem(order, items.get(i));
            item.put("item_id", fresh.get(i));
            // τ²'s tool takes the price and options of the last new item for every modified item: kept, its gold databases have it.
            item.set("price", lastVariant.get("price"));
            item.set("options", lastVariant.get("options").deepCopy());
        }
        order.put("status", "pending (item modified)");
        return RetailRecords.order(order);
    }

    private Object modifyPayment(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!order.path("status").asText().contains("pending")) throw new Tau2Error("Non-pending order cannot be modified");
        ObjectNode method = paymentMethod(order, a.get("payment_method_id"));
        ArrayNode history = order.withArray("payment_history");
        if (history.size() != 1 || !"payment".equals(history.get(0).path("transaction_type").asText())) {
            throw new Tau2Error("There should be exactly one payment for a pending order");
        }
        JsonNode current = history.get(0);
        if (current.path("payment_method_id").equals(a.get("payment_method_id"))) {
            throw new Tau2Error("The new payment method should be different from the current one");
        }
        JsonNode amount = current.get("amount");
        if (giftCard(method) && method.path("balance").doubleValue() < amount.doubleValue()) {
            throw new Tau2Error("Insufficient gift card balance to pay for the order");
        }
        ObjectNode payment = history.addObject();
        payment.put("transaction_type", "payment");
        payment.set("amount", amount);
        payment.set("payment_method_id", a.get("payment_method_id"));
        ObjectNode refund = history.addObject();
        refund.put("transaction_type", "refund");
        refund.set("amount", amount);
        refund.set("payment_method_id", current.get("payment_method_id"));
        if (giftCard(method)) method.put("balance", round2(method.path("balance").doubleValue() - amount.doubleValue()));
        ObjectNode old = paymentMethod(order, current.path("payment_method_id"));
        if (giftCard(old)) old.put("balance", round2(old.path("balance").doubleValue() + amount.doubleValue()));
        return RetailRecords.order(order);
    }

    private Object modifyUserAddress(Args a) {
        ObjectNode user = user(a.get("user_id"));
        user.set("address", address(a));
        return RetailRecords.user(user);
    }

    private Object returnItems(Args a) {
        ObjectNode order = order(a.get("order_id"));
        if (!"delivered".equals(order.path("status").asText())) throw new Tau2Error("Non-delivered order cannot be returned");
        ObjectNode method = paymentMethod(order, a.get("payment_method_id"));
        if (!giftCard(method) && !order.path("payment_history").path(0).path("payment_method_id").equals(a.get("payment_method_id"))) {
            throw new Tau2Error("Payment method should be the original payment method");
        }
        List<String> items = ids(a, "item_ids");
        countsWithin(order, items, id -> "Some item not found");
        order.put("status", "return requested");
        order.set("return_items", sorted(items));
        order.set("return_payment_method_id", a.get("payment_method_id"));
        return RetailRecords.order(order);
    }

    private static ArrayNode sorted(List<String> ids) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        ids.stream().sorted().forEach(out::add);
        return out;
    }

    /** Python's {@code round(x, 2)}: half-even on the exact binary value. */
    static double round2(double x) {
        return new BigDecimal(x).setScale(2, RoundingMode.HALF_EVEN).doubleValue();
    }
}
