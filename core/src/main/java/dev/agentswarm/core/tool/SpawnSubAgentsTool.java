package dev.agentswarm.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.SwarmProtocol;
import dev.agentswarm.core.protocol.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The {@code spawn_subagents} tool an orchestrator episode calls with a plan. Its spec is what the
 * model reads; its work is done by the swarm running the episode, to which the episode hands the
 * call ({@link SwarmProtocol.SpawnSubAgents}). Called in an episode that no swarm runs, it fails
 * with an observation saying so.
 */
public final class SpawnSubAgentsTool implements Tool {

    public static final String NAME = SwarmProtocol.SPAWN_TOOL;

    private static final ToolSpec SPEC = new ToolSpec(NAME,
            "Runs sub-agents in parallel on a plan of sub-tasks and returns their answers. A sub-task starts as soon as "
                    + "the sub-tasks it depends on are done, and is given their answers. Call it again to re-plan; "
                    + "call finish when you can answer.",
            schema());

    private static ObjectNode schema() {
        ObjectNode s = Json.object().put("type", "object");
        ObjectNode props = s.putObject("properties");
        ObjectNode subtasks = props.putObject("subtasks").put("type", "array").put("minItems", 1)
                .put("description", "The sub-tasks, each run by its own sub-agent.");
        ObjectNode item = subtasks.putObject("items").put("type", "object");
        ObjectNode p = item.putObject("properties");
        p.putObject("id").put("type", "string").put("description", "A short unique name, e.g. \"a\" or \"capital\".");
        p.putObject("goal").put("type", "string").put("description", "What the sub-agent must find or do, self-contained.");
        ObjectNode mode = p.putObject("mode").put("type", "string")
                .put("description", "search (multi-hop retrieval with citations), coding (write and run code), "
                        + "general (any tools), or orchestrator (splits it further). Default general.");
        mode.putArray("enum").add("search").add("coding").add("general").add("orchestrator");
        p.putObject("tools").put("type", "array").put("description", "Tools the sub-agent may use (default: its mode's).")
                .putObject("items").put("type", "string");
        p.putObject("depends_on").put("type", "array").put("description", "Ids of the sub-tasks whose answers it needs.")
                .putObject("items").put("type", "string");
        item.putArray("required").add("id").add("goal");
        ObjectNode join = props.putObject("join").put("type", "string")
                .put("description", "When the call returns: all (default), first_k (the first k answers, with \"k\"), "
                        + "or quorum (as soon as most sub-tasks agree on one answer). Sub-agents still running then are cancelled.");
        join.putArray("enum").add("all").add("first_k").add("quorum");
        props.putObject("k").put("type", "integer").put("minimum", 1).put("description", "How many answers first_k waits for.");
        s.putArray("required").add("subtasks");
        return s;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /**
     * Safe to ask again: the swarm journals each round with the orchestrator's turn that planned it, and a
     * call asked again after a crash is attached to that round (its finished sub-agents are not run again),
     * never planned anew.
     */
    @Override
    public boolean idempotent(JsonNode arguments) {
        return true;
    }

    @Override
    public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
        return CompletableFuture.failedFuture(new IllegalStateException(
                NAME + " only works in an orchestrator episode that a swarm runs (swarm run); answer with the tools you have"));
    }
}
