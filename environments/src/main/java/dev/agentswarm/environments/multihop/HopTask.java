package dev.agentswarm.environments.multihop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a multi-hop task carries what its episode needs in its metadata (plain strings, so a task
 * travels between nodes as it is): the hops, the decomposition an oracle follows, the gold support,
 * the answer's aliases and, for a dataset question, its own passages.
 */
final class HopTask {

    static final String HOPS = "hops";
    static final String STEPS = "steps";
    /** The gold support units the score compares against (passage keys, or HotpotQA's title/sentence facts). */
    static final String SUPPORT = "support";
    /** The keys a perfect answer cites. */
    static final String CITE = "cite";
    static final String ALIASES = "aliases";
    static final String PASSAGES = "passages";
    static final String TYPE = "type";

    /**
     * One hop of the decomposition: what it asks, the query a good searcher sends (and, should that
     * miss, more precise ones: the page's title, then its words), the entity it starts from, its
     * answer and the passages that state it.
     */
    record Step(String ask, String query, List<String> fallbacks, String topic, String answer, List<String> support) {
        Step {
            fallbacks = List.copyOf(fallbacks);
            support = List.copyOf(support);
        }
    }

    private HopTask() {}

    static String stepsJson(List<Step> steps) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (Step s : steps) {
            ObjectNode o = a.addObject();
            o.put("ask", s.ask()).put("query", s.query()).put("topic", s.topic()).put("answer", s.answer());
            ArrayNode fallbacks = o.putArray("fallbacks");
            s.fallbacks().forEach(fallbacks::add);
            ArrayNode sup = o.putArray("support");
            s.support().forEach(sup::add);
        }
        return Json.write(a);
    }

    static List<Step> steps(Task task) {
        List<Step> out = new ArrayList<>();
        for (JsonNode o : node(task, STEPS)) {
            out.add(new Step(o.path("ask").asText(), o.path("query").asText(), strings(o.path("fallbacks")), o.path("topic").asText(),
                    o.path("answer").asText(), strings(o.path("support"))));
        }
        return out;
    }

    static String stringsJson(List<String> values) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        values.forEach(a::add);
        return Json.write(a);
    }

    static List<String> strings(Task task, String key) {
        return strings(node(task, key));
    }

    static String passagesJson(List<Passage> passages) {
        ArrayNode a = Json.MAPPER.createArrayNode();
        for (Passage p : passages) {
            ObjectNode o = a.addObject().put("key", p.key()).put("title", p.title());
            ArrayNode s = o.putArray("sentences");
            p.sentences().forEach(s::add);
        }
        return Json.write(a);
    }

    static List<Passage> passages(Task task) {
        List<Passage> out = new ArrayList<>();
        for (JsonNode o : node(task, PASSAGES)) out.add(new Passage(o.path("key").asText(), o.path("title").asText(), strings(o.path("sentences"))));
        return out;
    }

    static int hops(Task task) {
        String h = task.metadata().get(HOPS);
        try {
            return Integer.parseInt(h);
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException("task " + task.id() + ": metadata \"" + HOPS + "\" must be a number of hops, got " + h);
        }
    }

    private static JsonNode node(Task task, String key) {
        Map<String, String> m = task.metadata();
        String v = m.get(key);
        if (v == null) throw new IllegalArgumentException("task " + task.id() + " has no \"" + key + "\" metadata");
        try {
            JsonNode n = Json.parse(v);
            if (!n.isArray()) throw new IllegalArgumentException("task " + task.id() + ": metadata \"" + key + "\" must be a JSON array");
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException("task " + task.id() + ": metadata \"" + key + "\" is not JSON: " + e.getMessage());
        }
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : a) out.add(n.asText());
        return out;
    }
}
