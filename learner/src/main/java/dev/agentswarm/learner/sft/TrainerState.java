package dev.agentswarm.learner.sft;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.learner.data.DataCursor;

/**
 * What a checkpoint needs besides weights and optimizer moments to continue a run exactly: the step
 * count, where the data order stands and the seed that fixes it, and the running figures.
 */
public record TrainerState(long step, DataCursor cursor, long seed, double bestLoss, double bestEvalLoss,
                           long tokensSeen, double elapsedSeconds) {

    public static TrainerState start(long seed) {
        return new TrainerState(0, DataCursor.START, seed, Double.NaN, Double.NaN, 0, 0);
    }

    public ObjectNode toJson() {
        ObjectNode n = Json.object();
        n.put("step", step);
        n.putObject("data_cursor").put("epoch", cursor.epoch()).put("index", cursor.index());
        n.put("seed", seed);
        putNumber(n, "best_loss", bestLoss);
        putNumber(n, "best_eval_loss", bestEvalLoss);
        n.put("tokens_seen", tokensSeen);
        n.put("elapsed_s", elapsedSeconds);
        return n;
    }

    public static TrainerState fromJson(JsonNode n) {
        JsonNode cursor = n.path("data_cursor");
        if (!n.path("step").canConvertToLong() || !cursor.path("epoch").isInt() || !cursor.path("index").isInt()) {
            throw new IllegalArgumentException("state.json needs step and data_cursor {epoch, index}");
        }
        return new TrainerState(n.get("step").asLong(), new DataCursor(cursor.get("epoch").asInt(), cursor.get("index").asInt()),
                n.path("seed").asLong(), number(n, "best_loss"), number(n, "best_eval_loss"),
                n.path("tokens_seen").asLong(), n.path("elapsed_s").asDouble());
    }

    private static void putNumber(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) n.putNull(key);
        else n.put(key, v);
    }

    private static double number(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || !v.isNumber() ? Double.NaN : v.asDouble();
    }
}
