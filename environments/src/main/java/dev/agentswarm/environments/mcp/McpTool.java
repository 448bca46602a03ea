package dev.agentswarm.environments.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One tool of an MCP server as an episode tool, offered under its server's prefix ({@code fs.read_file}).
 * Its spec is the server's latest listing of it (a {@code notifications/tools/list_changed} or a
 * restart may change its description or schema: episodes that start afterwards see the new one); a
 * tool the server no longer lists answers that it is gone. The executor has validated the arguments
 * against the spec's schema before {@link #invoke}; the server validates them again.
 */
public final class McpTool implements Tool {

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final McpServers.Entry entry;
    private final String mcpName;
    private volatile ToolSpec spec;
    private volatile boolean listed = true;

    McpTool(McpServers.Entry entry, McpSchema.Tool definition) {
        this.entry = entry;
        this.mcpName = definition.name();
        update(definition);
    }

    /** The server's own name of the tool. */
    public String mcpName() {
        return mcpName;
    }

    /** The name of its server in {@code agentswarm.mcp.servers}. */
    public String server() {
        return entry.settings.name();
    }

    /** Whether its server lists it now. */
    public boolean listed() {
        return listed;
    }

    /** The server's latest definition: a new spec object only when something changed, so episode setups stay shared. */
    void update(McpSchema.Tool definition) {
        ToolSpec next = spec(entry.settings.offeredName(mcpName), definition);
        if (!next.equals(spec)) spec = next;
        listed = true;
    }

    void unlisted() {
        listed = false;
    }

    /**
     * The spec of an MCP tool: its description (or title), and its input schema as the parameters,
     * without {@code $schema} (a note on the dialect, not a constraint: it would only cost prompt
     * tokens, and some providers refuse it in function parameters). A tool without a schema takes any object.
     */
    static ToolSpec spec(String offeredName, McpSchema.Tool t) {
        ObjectNode params;
        if (t.inputSchema() == null || t.inputSchema().isEmpty()) {
            params = Json.object().put("type", "object");
            params.putObject("properties");
        } else {
            JsonNode tree = Json.MAPPER.valueToTree(t.inputSchema());
            params = tree.isObject() ? (ObjectNode) tree : Json.object().put("type", "object");
            params.remove("$schema");
        }
        String description = t.description() != null && !t.description().isBlank() ? t.description()
                : t.title() != null ? t.title() : "";
        return new ToolSpec(offeredName, description, params);
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        if (!listed) {
            return CompletableFuture.failedFuture(new McpException("MCP server '" + server() + "' no longer lists tool '" + mcpName
                    + "' (its tool list changed)", ToolStatus.ERROR));
        }
        Map<String, Object> args = arguments == null || arguments.isNull() ? Map.of() : Json.MAPPER.convertValue(arguments, MAP);
        // The episode's executor enforces its tool timeout (a TIMEOUT result); call-timeout is this side's, when shorter.
        long own = entry.settings.callTimeout().toMillis();
        long caller = context != null && context.timeoutMillis() > 0 ? context.timeoutMillis() : 0;
        String episode = context == null ? "" : context.episodeId();
        return entry.server(episode).call(mcpName, args, caller > 0 && caller <= own ? 0 : own, caller);
    }

    /**
     * Never by the server's word: {@code readOnlyHint} and {@code idempotentHint} are hints that the
     * MCP specification tells clients not to trust from an untrusted server, and a server that
     * claimed a write was read-only would have it run twice after a crash. The node's
     * configuration decides ({@code agentswarm.tools."fs.read_file".idempotent = true}).
     */
    @Override
    public boolean idempotent(JsonNode arguments) {
        return false;
    }

    @Override
    public void release(String episodeId) {
        entry.release(episodeId);
    }
}
