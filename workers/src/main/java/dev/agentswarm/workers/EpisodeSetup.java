package dev.agentswarm.workers;

import dev.agentswarm.core.context.ContextCompressor;
import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.format.ToolCallFormat;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.SpawnSubAgentsTool;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.List;

/**
 * Everything an episode of a given spec needs that does not change from one episode to the next:
 * the tool-call format, the offered tools and their executor, the rendered system message, the
 * sampling parameters with the format's stop sequences, and the context compressor. Immutable and
 * shared by every episode of that spec on the node, until a tool's spec changes ({@link #current}).
 */
public final class EpisodeSetup {

    final ToolCallFormat format;
    final List<ToolSpec> toolSpecs;
    /** The offered tools, in the order of {@link #toolSpecs}: a tool whose spec changed since makes this setup stale. */
    private final List<dev.agentswarm.core.tool.Tool> offered;
    final ToolExecutor executor;
    final boolean finishOffered;
    final Message systemMessage;
    final int systemTokens;
    final SamplingParams sampling;
    final TokenCounter counter;
    /** The context budget left for messages: native tool schemas travel in the same prompt. */
    final int contextBudget;
    final ContextCompressor compressor;

    EpisodeSetup(EpisodeSpec spec, Policy policy, ToolRegistry nodeTools) {
        this.format = ToolCallFormats.byName(spec.format());
        // spawn_subagents is answered by the swarm running the episode, so a node offers it without registering it.
        if (spec.tools().contains(SpawnSubAgentsTool.NAME) && nodeTools.find(SpawnSubAgentsTool.NAME).isEmpty()) {
            nodeTools = nodeTools.plus(new SpawnSubAgentsTool());
        }
        ToolRegistry tools = nodeTools.select(spec.tools());
        this.offered = tools.names().stream().map(n -> tools.find(n).orElseThrow()).toList();
        this.toolSpecs = offered.stream().map(dev.agentswarm.core.tool.Tool::spec).toList();
        this.executor = new ToolExecutor(tools, spec.maxToolResultChars(), spec.toolTimeoutMillis());
        this.finishOffered = tools.find(dev.agentswarm.core.tool.FinishTool.NAME).isPresent();
        String toolsPrompt = toolSpecs.isEmpty() || !spec.toolsInPrompt() ? "" : format.toolsPrompt(toolSpecs);
        String system = toolsPrompt.isEmpty() ? spec.systemPrompt()
                : spec.systemPrompt().isEmpty() ? toolsPrompt : spec.systemPrompt() + "\n\n" + toolsPrompt;
        this.systemMessage = Message.system(system);
        this.counter = policy.tokenCounter();
        this.systemTokens = counter.count(systemMessage);
        this.sampling = spec.sampling().withExtraStops(format.stopSequences());
        int toolTokens = 0;
        if (format.nativeTools()) {
            for (ToolSpec t : toolSpecs) toolTokens += counter.count(dev.agentswarm.core.json.Json.write(t));
        }
        this.contextBudget = spec.contextBudget() - toolTokens;
        if (contextBudget <= systemTokens) {
            throw new IllegalArgumentException("context-budget " + spec.contextBudget() + " tokens cannot hold the system prompt ("
                    + systemTokens + ") and the tool schemas (" + toolTokens + "); raise it");
        }
        this.compressor = new ContextCompressor(counter, contextBudget);
    }

    /**
     * Whether the offered tools still have the specs this setup was made with. A tool's spec may change
     * while the node runs (an MCP server's {@code notifications/tools/list_changed}); tools keep one spec
     * object until it changes, so this is an identity check per tool, cheap enough for every episode.
     */
    boolean current() {
        for (int i = 0; i < offered.size(); i++) {
            if (offered.get(i).spec() != toolSpecs.get(i)) return false;
        }
        return true;
    }

    /**
     * A {@code finish} call ends the episode with its answer (when the tool is offered and the answer
     * is a string). Other calls of the same turn are not run: the model said it was done.
     */
    String finishAnswer(List<ToolCall> calls) {
        if (!finishOffered) return null;
        for (ToolCall call : calls) {
            String answer = FinishTool.answerOf(call);
            if (answer != null) return answer;
        }
        return null;
    }
}
