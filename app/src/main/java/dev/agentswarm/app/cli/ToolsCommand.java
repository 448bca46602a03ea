package dev.agentswarm.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.agentswarm.app.EpisodeRuns;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.SuiteCatalog;
import dev.agentswarm.environments.Suites;
import dev.agentswarm.environments.mcp.McpServers;
import dev.agentswarm.environments.mcp.McpSettings;
import dev.agentswarm.policy.openai.OpenAiCompatiblePolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "tools", mixinStandardHelpOptions = true,
        description = {"Lists every tool an episode of this node would be offered, where each comes from (built-in, a suite,"
                + " an MCP server of agentswarm.mcp.servers, which it starts to ask) and its arguments.",
                "--json prints everything with the full JSON Schemas. Exits with 1 when an MCP server failed to start"
                        + " (it is listed with why; a node starts without its tools), 2 on a configuration error."})
public final class ToolsCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "HOCON file overriding the defaults (agentswarm.mcp.servers…).")
    Path config;

    @Option(names = "--suite", paramLabel = "NAME", split = ",",
            description = "Only these suites' tools, as `swarm run --suite NAME` offers them (default: the enabled suites,"
                    + " agentswarm.environments.enabled, as `swarm node` offers them).")
    List<String> suiteNames;

    @Option(names = "--json", description = "Print one JSON object: every tool with its source and full JSON Schema, and each MCP server.")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Config cfg = SwarmNode.loadConfig(config);
        McpSettings settings = McpSettings.fromConfig(cfg); // bad configuration is refused before anything starts
        Suites suites = suiteNames == null ? SuiteCatalog.fromConfig(cfg, OpenAiCompatiblePolicy::connect)
                : new Suites(suiteNames.stream().map(n -> SuiteCatalog.one(cfg, n, OpenAiCompatiblePolicy::connect)).toList());
        try (McpServers mcp = McpServers.start(settings, new SimpleMeterRegistry())) {
            ToolRegistry tools = EpisodeRuns.nodeTools(cfg, suites, mcp);
            Map<String, String> sources = sources(cfg, suites, mcp);
            PrintWriter out = spec.commandLine().getOut();
            if (json) out.println(Json.write(asJson(tools, sources, mcp)));
            else print(out, tools, sources, mcp);
            out.flush();
            return mcp.servers().stream().allMatch(McpServers.ServerStatus::started) ? 0 : 1;
        }
    }

    /** Where each tool comes from: "built-in", "suite NAME[, NAME…]" or "mcp server NAME". */
    static Map<String, String> sources(Config cfg, Suites suites, McpServers mcp) {
        Map<String, String> out = new LinkedHashMap<>();
        Set<String> builtIn = new HashSet<>(EpisodeRuns.builtInTools().names());
        for (String n : EpisodeRuns.ownTools(cfg).names()) out.put(n, builtIn.contains(n) ? "built-in" : "built-in (sandbox)");
        Map<String, List<String>> bySuite = new LinkedHashMap<>();
        for (Suite s : suites.all()) {
            for (Tool t : s.tools()) bySuite.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(s.name());
        }
        bySuite.forEach((tool, names) -> out.putIfAbsent(tool, "suite " + String.join(", ", names)));
        for (Tool t : mcp.tools()) out.put(t.name(), "mcp server " + mcp.serverOf(t.name()).orElse("?"));
        return out;
    }

    private static void print(PrintWriter out, ToolRegistry tools, Map<String, String> sources, McpServers mcp) {
        int nameWidth = 4;
        int fromWidth = 4;
        for (ToolSpec s : tools.specs()) {
            nameWidth = Math.max(nameWidth, s.name().length());
            fromWidth = Math.max(fromWidth, sources.getOrDefault(s.name(), "").length());
        }
        String row = "%-" + nameWidth + "s  %-" + fromWidth + "s  %s%n";
        out.printf(row, "TOOL", "FROM", "ARGUMENTS (* required)");
        for (ToolSpec s : tools.specs()) {
            out.printf(row, s.name(), sources.getOrDefault(s.name(), "?"), arguments(s.parameters()));
            String d = s.description() == null ? "" : s.description().strip().replaceAll("\\s+", " ");
            if (!d.isEmpty()) out.println("    " + (d.length() <= 110 ? d : d.substring(0, 109) + "…"));
        }
        for (McpServers.ServerStatus st : mcp.servers()) {
            out.println();
            out.print("mcp server " + st.name() + " (" + st.transport() + (st.perEpisode() ? ", one process per episode" : "") + "): ");
            if (st.started()) {
                out.println(st.tools().size() + " tools");
            } else {
                out.println("FAILED to start: " + st.error());
            }
            for (String n : st.notOffered()) out.println("    not offered: " + n);
        }
    }

    /** A schema's fields in one line: {@code path*: string, head: number}; nested shapes are summarised. */
    static String arguments(JsonNode schema) {
        JsonNode props = schema == null ? null : schema.get("properties");
        if (props == null || !props.isObject() || props.isEmpty()) return "(none)";
        Set<String> required = new HashSet<>();
        for (JsonNode r : schema.path("required")) required.add(r.asText());
        List<String> parts = new ArrayList<>();
        for (var e : props.properties()) parts.add(e.getKey() + (required.contains(e.getKey()) ? "*" : "") + ": " + type(e.getValue()));
        return String.join(", ", parts);
    }

    private static String type(JsonNode s) {
        if (s.has("enum")) {
            List<String> values = new ArrayList<>();
            for (JsonNode v : s.get("enum")) values.add(v.isTextual() ? v.asText() : v.toString());
            return String.join("|", values);
        }
        JsonNode t = s.get("type");
        if (t == null) return s.has("anyOf") || s.has("oneOf") ? "one of several" : "any";
        if (t.isArray()) {
            List<String> names = new ArrayList<>();
            for (JsonNode n : t) names.add(n.asText());
            return String.join("|", names);
        }
        if ("array".equals(t.asText()) && s.path("items").has("type")) return type(s.get("items")) + "[]";
        return t.asText();
    }

    private static ObjectNode asJson(ToolRegistry tools, Map<String, String> sources, McpServers mcp) {
        ObjectNode root = Json.object();
        ArrayNode list = root.putArray("tools");
        for (String name : tools.names()) {
            Tool t = tools.find(name).orElseThrow();
            ObjectNode o = list.addObject();
            o.put("name", name);
            String from = sources.getOrDefault(name, "?");
            o.put("source", from.startsWith("mcp server ") ? "mcp" : from.startsWith("suite ") ? "suite" : "built-in");
            if (from.startsWith("mcp server ")) o.put("server", from.substring("mcp server ".length()));
            if (from.startsWith("suite ")) {
                ArrayNode s = o.putArray("suites");
                for (String n : from.substring("suite ".length()).split(", ")) s.add(n);
            }
            o.put("description", t.spec().description());
            o.put("idempotent", t.idempotent(Json.object()));
            o.set("parameters", t.spec().parameters());
        }
        ArrayNode servers = root.putArray("mcp_servers");
        for (McpServers.ServerStatus st : mcp.servers()) {
            ObjectNode o = servers.addObject();
            o.put("name", st.name());
            o.put("transport", st.transport());
            o.put("per_episode", st.perEpisode());
            o.put("started", st.started());
            if (st.error() != null) o.put("error", st.error());
            ArrayNode names = o.putArray("tools");
            for (ToolSpec s : st.tools()) names.add(s.name());
            ArrayNode not = o.putArray("not_offered");
            st.notOffered().forEach(not::add);
        }
        return root;
    }
}
