package dev.agentswarm.environments.tau2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each retail tool's effect on a small hand-made store, checked by hand against τ²'s tool code. */
class RetailToolsTest {

    static final String DB = """
            {"products": {"p1": {"name": "Shoe", "product_id": "p1", "variants": {
                "s8": {"item_id": "s8", "options": {"size": "8", "color": "red"}, "available": true, "price": 100.0},
                "s9": {"item_id": "s9", "options": {"size": "9", "color": "red"}, "available": true, "price": 110.5},
                "s10": {"item_id": "s10", "options": {"size": "10", "color": "blue"}, "available": false, "price": 120.0}}},
              "p2": {"name": "Lamp", "product_id": "p2", "variants": {
                "l1": {"item_id": "l1", "options": {"bulb": "LED"}, "available": true, "price": 30.25},
                "l2": {"item_id": "l2", "options": {"bulb": "halogen"}, "available": true, "price": 35.0}}}},
             "users": {"ann_lee_1": {"user_id": "ann_lee_1", "name": {"first_name": "Ann", "last_name": "Lee"},
                "address": {"address1": "1 Main St", "address2": "", "city": "Austin", "country": "USA", "state": "TX", "zip": "78701"},
                "email": "ann@example.com",
                "payment_methods": {"gift_card_1": {"source": "gift_card", "id": "gift_card_1", "balance": 20.0},
                                    "credit_card_1": {"source": "credit_card", "id": "credit_card_1", "brand": "visa", "last_four": "1111"},
                                    "paypal_1": {"source": "paypal", "id": "paypal_1"}},
                "orders": ["#W1", "#W2"]}},
             "orders": {
               "#W1": {"order_id": "#W1", "user_id": "ann_lee_1", "address": {"address1": "1 Main St", "address2": "", "city": "Austin",
                  "country": "USA", "state": "TX", "zip": "78701"},
                  "items": [{"name": "Shoe", "product_id": "p1", "item_id": "s8", "price": 100.0, "options": {"size": "8", "color": "red"}},
                            {"name": "Lamp", "product_id": "p2", "item_id": "l1", "price": 30.25, "options": {"bulb": "LED"}}],
                  "status": "pending", "fulfillments": [],
                  "payment_history": [{"transaction_type": "payment", "amount": 130.25, "payment_method_id": "gift_card_1"}]},
               "#W2": {"order_id": "#W2", "user_id": "ann_lee_1", "address": {"address1": "1 Main St", "address2": "", "city": "Austin",
                  "country": "USA", "state": "TX", "zip": "78701"},
                  "items": [{"name": "Shoe", "product_id": "p1", "item_id": "s8", "price": 100.0, "options": {"size": "8", "color": "red"}}],
                  "status": "delivered", "fulfillments": [{"tracking_id": ["t1"], "item_ids": ["s8"]}],
                  "payment_history": [{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "credit_card_1"}]}}}
            """;

    static Tau2Environment env() {
        try {
            return new Tau2Environment(new RetailTools((ObjectNode) Json.MAPPER.readTree(DB)), null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Tau2Environment.Response call(Tau2Environment env, String name, String args) {
        try {
            return env.respond(new Tau2Message.Call("c", name, Json.MAPPER.readTree(args), Tau2Message.Requestor.ASSISTANT));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode db(Tau2Environment env, String path) {
        return env.agent.db.at(path);
    }

    @Test
    void lookupsAndTheirErrors() {
        Tau2Environment e = env();
        assertEquals("ann_lee_1", call(e, "find_user_id_by_name_zip", "{\"first_name\": \"ann\", \"last_name\": \"LEE\", \"zip\": \"78701\"}").content());
        assertEquals(new Tau2Environment.Response("Error: User not found", true),
                call(e, "find_user_id_by_name_zip", "{\"first_name\": \"Ann\", \"last_name\": \"Lee\", \"zip\": 78701}"));
        assertEquals("ann_lee_1", call(e, "find_user_id_by_email", "{\"email\": \"ANN@example.com\"}").content());
        assertEquals("Error: Order not found", call(e, "get_order_details", "{\"order_id\": \"W1\"}").content());
        String order = call(e, "get_order_details", "{\"order_id\": \"#W2\"}").content();
        assertTrue(order.startsWith("{\"order_id\": \"#W2\", \"user_id\": \"ann_lee_1\", \"address\": {"), order);
        assertTrue(order.endsWith("\"cancel_reason\": null, \"exchange_items\": null, \"exchange_new_items\": null, \"exchange_payment_method_id\": null,"
                + " \"exchange_price_difference\": null, \"return_items\": null, \"return_payment_method_id\": null}"), order);
        assertEquals("{\"item_id\": \"s9\", \"options\": {\"size\": \"9\", \"color\": \"red\"}, \"available\": true, \"price\": 110.5}",
                call(e, "get_item_details", "{\"item_id\": \"s9\"}").content());
        assertEquals("{\"Lamp\": \"p2\", \"Shoe\": \"p1\"}", call(e, "list_all_product_types", "{}").content());
        assertEquals("Error: RetailTools.get_order_details() missing 1 required positional argument: 'order_id'",
                call(e, "get_order_details", "{}").content());
        assertEquals("Error: RetailTools.get_user_details() got an unexpected keyword argument 'name'",
                call(e, "get_user_details", "{\"user_id\": \"ann_lee_1\", \"name\": \"Ann\"}").content());
        assertEquals("Error: Tool 'delete_everything' not found.", call(e, "delete_everything", "{}").content());
        assertEquals("Transfer successful", call(e, "transfer_to_human_agents", "{\"summary\": \"help\"}").content());
    }

    @Test
    void calculateAsPythonRoundsIt() {
        Tau2Environment e = env();
        assertEquals("3.33", call(e, "calculate", "{\"expression\": \"10 / 3\"}").content());
        assertEquals("8.0", call(e, "calculate", "{\"expression\": \"2 ** 3\"}").content());
        assertEquals("-1.5", call(e, "calculate", "{\"expression\": \"-(3 / 2)\"}").content());
        assertEquals("Error: division by zero", call(e, "calculate", "{\"expression\": \"1/0\"}").content());
        assertEquals("Error: Invalid characters in expression", call(e, "calculate", "{\"expression\": \"import os\"}").content());
        assertEquals("Error: invalid syntax (<string>, line 1)", call(e, "calculate", "{\"expression\": \"(1 + 2\"}").content());
    }

    @Test
    void cancellingAPendingOrderRefundsAGiftCardAtOnce() {
        Tau2Environment e = env();
        assertEquals("Error: Invalid reason", call(e, "cancel_pending_order", "{\"order_id\": \"#W1\", \"reason\": \"too expensive\"}").content());
        assertEquals("pending", db(e, "/orders/#W1/status").asText(), "a refused call changes nothing");
        assertFalse(call(e, "cancel_pending_order", "{\"order_id\": \"#W1\", \"reason\": \"no longer needed\"}").error());
        assertEquals("cancelled", db(e, "/orders/#W1/status").asText());
        assertEquals("no longer needed", db(e, "/orders/#W1/cancel_reason").asText());
        assertEquals(150.25, db(e, "/users/ann_lee_1/payment_methods/gift_card_1/balance").doubleValue());
        assertEquals("refund", db(e, "/orders/#W1/payment_history/1/transaction_type").asText());
        assertEquals("Error: Non-pending order cannot be cancelled", call(e, "cancel_pending_order",
                "{\"order_id\": \"#W2\", \"reason\": \"no longer needed\"}").content());
    }

    @Test
    void modifyingSeveralItemsKeepsTau2sSlipOfTheLastItemsPriceAndOptions() {
        Tau2Environment e = env();
        ((ObjectNode) db(e, "/users/ann_lee_1/payment_methods/gift_card_1")).put("balance", 5.0);
        assertEquals("Error: Insufficient gift card balance to pay for the new item", call(e, "modify_pending_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s9\"], \"payment_method_id\": \"gift_card_1\"}").content());
        assertEquals("pending", db(e, "/orders/#W1/status").asText());
        Tau2Environment g = env();
        assertFalse(call(g, "modify_pending_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s9\"], \"payment_method_id\": \"gift_card_1\"}").error());
        assertEquals(9.5, db(g, "/users/ann_lee_1/payment_methods/gift_card_1/balance").doubleValue(), "the gift card pays the difference at once");
        assertEquals(110.5, db(g, "/orders/#W1/items/0/price").doubleValue());
        Tau2Environment f = env();
        assertEquals("Error: The new item id should be different from the old item id", call(f, "modify_pending_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s8\"], \"payment_method_id\": \"credit_card_1\"}").content());
        assertEquals("Error: New item s10 not found or available", call(f, "modify_pending_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s10\"], \"payment_method_id\": \"credit_card_1\"}").content());
        assertFalse(call(f, "modify_pending_order_items", "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\", \"l1\"],"
                + " \"new_item_ids\": [\"s9\", \"l2\"], \"payment_method_id\": \"credit_card_1\"}").error());
        assertEquals("pending (item modified)", db(f, "/orders/#W1/status").asText());
        assertEquals("s9", db(f, "/orders/#W1/items/0/item_id").asText());
        assertEquals(35.0, db(f, "/orders/#W1/items/0/price").doubleValue(), "the shoe got the lamp's price, as in τ²");
        assertEquals("halogen", db(f, "/orders/#W1/items/0/options/bulb").asText());
        assertEquals("payment", db(f, "/orders/#W1/payment_history/1/transaction_type").asText());
        assertEquals(15.25, db(f, "/orders/#W1/payment_history/1/amount").doubleValue(), 1e-9);
        assertEquals("Error: Non-pending order cannot be modified", call(f, "modify_pending_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s9\"], \"new_item_ids\": [\"s8\"], \"payment_method_id\": \"credit_card_1\"}").content(),
                "items of a pending order are modified once");
    }

    @Test
    void exchangesReturnsAddressesAndPayments() {
        Tau2Environment e = env();
        assertEquals("Error: Non-delivered order cannot be exchanged", call(e, "exchange_delivered_order_items",
                "{\"order_id\": \"#W1\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s9\"], \"payment_method_id\": \"credit_card_1\"}").content());
        assertEquals("Error: Number of l1 not found.", call(e, "exchange_delivered_order_items",
                "{\"order_id\": \"#W2\", \"item_ids\": [\"l1\"], \"new_item_ids\": [\"l2\"], \"payment_method_id\": \"credit_card_1\"}").content());
        assertFalse(call(e, "exchange_delivered_order_items",
                "{\"order_id\": \"#W2\", \"item_ids\": [\"s8\"], \"new_item_ids\": [\"s9\"], \"payment_method_id\": \"credit_card_1\"}").error());
        assertEquals("exchange requested", db(e, "/orders/#W2/status").asText());
        assertEquals(10.5, db(e, "/orders/#W2/exchange_price_difference").doubleValue());
        assertEquals(1, db(e, "/orders/#W2/payment_history").size(), "an exchange moves no money yet");

        Tau2Environment r = env();
        assertEquals("Error: Payment method not found", call(r, "return_delivered_order_items",
                "{\"order_id\": \"#W2\", \"item_ids\": [\"s8\"], \"payment_method_id\": \"credit_card_2\"}").content());
        assertEquals("Error: Payment method should be the original payment method", call(r, "return_delivered_order_items",
                "{\"order_id\": \"#W2\", \"item_ids\": [\"s8\"], \"payment_method_id\": \"paypal_1\"}").content());
        assertFalse(call(r, "return_delivered_order_items", "{\"order_id\": \"#W2\", \"item_ids\": [\"s8\"], \"payment_method_id\": \"gift_card_1\"}").error(),
                "a gift card may receive any return");
        assertEquals("return requested", db(r, "/orders/#W2/status").asText());
        assertEquals(List.of("s8"), List.of(db(r, "/orders/#W2/return_items/0").asText()));

        Tau2Environment a = env();
        assertFalse(call(a, "modify_pending_order_address", "{\"order_id\": \"#W1\", \"address1\": \"2 Oak Ave\", \"address2\": \"\","
                + " \"city\": \"Dallas\", \"state\": \"TX\", \"country\": \"USA\", \"zip\": \"75201\"}").error());
        assertEquals("Dallas", db(a, "/orders/#W1/address/city").asText());
        assertEquals("Austin", db(a, "/users/ann_lee_1/address/city").asText(), "the user's own address stays");
        assertEquals("Error: The new payment method should be different from the current one", call(a, "modify_pending_order_payment",
                "{\"order_id\": \"#W1\", \"payment_method_id\": \"gift_card_1\"}").content());
        assertFalse(call(a, "modify_pending_order_payment", "{\"order_id\": \"#W1\", \"payment_method_id\": \"credit_card_1\"}").error());
        assertEquals(150.25, db(a, "/users/ann_lee_1/payment_methods/gift_card_1/balance").doubleValue(), "the old gift card is refunded");
        assertEquals(3, db(a, "/orders/#W1/payment_history").size());
    }
}
