package dev.agentswarm.environments.plugins;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugins tasks are drawn from, as an On-Demand-style platform lists them: an id, a name, a
 * description, a method, and named parameters whose values come from typed pools. Each also says
 * how a user asks for it ({@code ask}, a phrase with the parameters in braces), so a request can be
 * composed from several plugins and every parameter value appears in its text.
 */
record PluginCatalogue(List<Plugin> plugins, Map<String, List<String>> values) {

    record Plugin(String id, String name, String description, String method, Map<String, String> parameterTypes, String ask) {}

    static PluginCatalogue load(String resource) {
        try (InputStream in = PluginCatalogue.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("plugin catalogue " + resource + " is not on the classpath");
            return parse(Json.MAPPER.readTree(in), resource);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the plugin catalogue " + resource, e);
        }
    }

    static PluginCatalogue parse(JsonNode root, String source) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("values").fields(); it.hasNext(); ) {
            var e = it.next();
            List<String> pool = new ArrayList<>();
            e.getValue().forEach(v -> pool.add(v.asText()));
            if (pool.size() < 2) throw new IllegalArgumentException(source + ": value pool '" + e.getKey() + "' needs at least 2 values");
            values.put(e.getKey(), List.copyOf(pool));
        }
        List<Plugin> plugins = new ArrayList<>();
        int i = 0;
        for (JsonNode p : root.path("plugins")) {
            String where = source + ": plugins[" + i++ + "]";
            Map<String, String> params = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = p.path("parameters").fields(); it.hasNext(); ) {
                var e = it.next();
                String type = e.getValue().asText();
                if (!values.containsKey(type)) {
                    throw new IllegalArgumentException(where + ".parameters." + e.getKey() + ": unknown value pool '" + type + "'");
                }
                params.put(e.getKey(), type);
            }
            String ask = text(p, "ask", where);
            for (String name : params.keySet()) {
                if (!ask.contains("{" + name + "}")) throw new IllegalArgumentException(where + ".ask does not mention {" + name + "}");
            }
            plugins.add(new Plugin(text(p, "pluginId", where), text(p, "name", where), text(p, "description", where),
                    text(p, "method", where), Collections.unmodifiableMap(params), ask));
        }
        if (plugins.size() < 8) throw new IllegalArgumentException(source + ": a catalogue needs at least 8 plugins, has " + plugins.size());
        // Insertion-ordered maps: Map.copyOf's iteration order changes between JVMs, and generation walks them.
        return new PluginCatalogue(List.copyOf(plugins), Collections.unmodifiableMap(values));
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new IllegalArgumentException(where + "." + field + " is missing");
        return v.asText();
    }
}
