package dev.agentswarm.workers;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.environment.TaskEnvironments;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a node gives the episodes it runs: the policy that answers them and the tools they may
 * pick from. Episodes name their tools; the node resolves the names here, and keeps the
 * resulting {@link EpisodeSetup} per distinct spec so that thousands of episodes of the same
 * kind share one rendered system prompt, one tool executor and one compressor.
 */
public final class EpisodeServices {

    /** Distinct specs are few (one per suite or sub-agent mode); a run that makes more just recomputes. */
    private static final int MAX_CACHED_SETUPS = 1024;

    private record SetupKey(String systemPrompt, String format, List<String> tools, int contextBudget,
                            long toolTimeoutMillis, int maxToolResultChars, SamplingParams sampling) {}

    private final Policy policy;
    private final ToolRegistry tools;
    private final TaskEnvironments environments;
    private final Map<SetupKey, EpisodeSetup> setups = new ConcurrentHashMap<>();
    /** The last spec seen and its setup: in-process requesters reuse one spec object for many episodes. */
    private volatile LastSetup last;

    private record LastSetup(EpisodeSpec spec, EpisodeSetup setup) {}

    public EpisodeServices(Policy policy, ToolRegistry tools) {
        this(policy, tools, TaskEnvironments.NONE);
    }

    /** With the node's suites: episodes of their tasks get their environment (tool state, reward). */
    public EpisodeServices(Policy policy, ToolRegistry tools, TaskEnvironments environments) {
        if (policy == null) throw new IllegalArgumentException("a node needs a policy");
        if (tools == null) throw new IllegalArgumentException("a node needs a tool registry (it may be empty)");
        if (environments == null) throw new IllegalArgumentException("a node needs task environments (TaskEnvironments.NONE for none)");
        this.policy = policy;
        this.tools = tools;
        this.environments = environments;
    }

    public TaskEnvironments environments() {
        return environments;
    }

    public Policy policy() {
        return policy;
    }

    public ToolRegistry tools() {
        return tools;
    }

    /**
     * The setup for an episode of {@code spec} on a task whose environment may add tools and system
     * instructions of its own: the shared one when it adds neither, else one made for this episode.
     */
    public EpisodeSetup setupFor(EpisodeSpec spec, TaskEnvironment environment) {
        if (environment == null) return setupFor(spec);
        List<Tool> own = environment.tools();
        String instructions = environment.systemPrompt();
        if (own.isEmpty() && (instructions == null || instructions.isEmpty())) return setupFor(spec);
        ToolRegistry offered = tools;
        List<String> names = new ArrayList<>(spec.tools());
        for (Tool t : own) {
            if (tools.find(t.name()).isPresent() || names.contains(t.name())) {
                throw new IllegalArgumentException("the task's tool '" + t.name() + "' has the name of a tool the episode already has");
            }
            offered = offered.plus(t);
            names.add(t.name());
        }
        EpisodeSpec episode = spec.withTools(names);
        if (instructions != null && !instructions.isEmpty()) {
            episode = episode.withSystemPrompt(spec.systemPrompt().isEmpty() ? instructions : instructions + "\n\n" + spec.systemPrompt());
        }
        return new EpisodeSetup(episode, policy, offered);
    }

    /**
     * The shared, immutable setup for episodes of this spec, made again when one of its tools has
     * changed its spec since; throws {@link IllegalArgumentException} naming the problem when the
     * format or a tool is unknown on this node.
     */
    public EpisodeSetup setupFor(EpisodeSpec spec) {
        LastSetup recent = last;
        if (recent != null && recent.spec() == spec && recent.setup().current()) return recent.setup();
        SetupKey key = new SetupKey(spec.systemPrompt(), spec.format(), spec.tools(), spec.contextBudget(),
                spec.toolTimeoutMillis(), spec.maxToolResultChars(), spec.sampling());
        EpisodeSetup setup = setups.get(key);
        // A tool's spec changed (an MCP server listed its tools anew): episodes from now on get the new one.
        if (setup == null || !setup.current()) {
            setup = new EpisodeSetup(spec, policy, tools);
            if (setups.size() >= MAX_CACHED_SETUPS) setups.clear();
            setups.put(key, setup);
        }
        last = new LastSetup(spec, setup);
        return setup;
    }
}
