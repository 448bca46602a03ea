package dev.agentswarm.workers;

import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.tool.ToolRegistry;

/**
 * What a node gives the episodes it runs: the policy that answers them and the tools they may
 * pick from. Episodes name their tools; the node resolves the names here.
 */
public record EpisodeServices(Policy policy, ToolRegistry tools) {

    public EpisodeServices {
        if (policy == null) throw new IllegalArgumentException("a node needs a policy");
        if (tools == null) throw new IllegalArgumentException("a node needs a tool registry (it may be empty)");
    }
}
