package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** Retail records as τ²'s models dump them: every field in its declared order, unset optional ones as null. */
final class RetailRecords {

    private static final List<String> ORDER = List.of("order_id", "user_id", "address", "items", "status", "fulfillments", "payment_history",
            "cancel_reason", "exchange_items", "exchange_new_items", "exchange_payment_method_id", "exchange_price_difference",
            "return_items", "return_payment_method_id");
    private static final List<String> USER = List.of("user_id", "name", "address", "email", "payment_methods", "orders");

    private RetailRecords() {}

    static ObjectNode order(ObjectNode order) {
        return Toolkit.dump(order, ORDER);
    }

    static ObjectNode user(ObjectNode user) {
        return Toolkit.dump(user, USER);
    }
}
