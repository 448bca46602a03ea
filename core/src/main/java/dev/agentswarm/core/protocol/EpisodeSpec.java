package dev.agentswarm.core.protocol;

import com.typesafe.config.Config;
import dev.agentswarm.core.CborSerializable;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How one episode runs: its system prompt, tool-call format (by name), the tools it may call
 * (by name, resolved on the node that runs it), and its limits. Built from the
 * {@code agentswarm.episode} block of the configuration, then adjusted per task.
 *
 * @param tokenBudget     total tokens the episode may generate and read back as observations
 * @param contextBudget   tokens of the rendered context sent to the policy (compression keeps it under)
 * @param deadlineMillis  wall-clock limit of the whole episode
 * @param toolTimeoutMillis limit of one tool call
 * @param maxToolResultChars tool output beyond this is cut and the cut is marked
 * @param toolsInPrompt   whether the format's tool block (the schemas and how to call them) joins the
 *     system prompt; a model fine-tuned on one fixed tool set may leave it out (null, as in specs
 *     recorded before it existed: true)
 */
public record EpisodeSpec(String systemPrompt, String format, List<String> tools, String toolChoice, int maxTurns,
                          int tokenBudget, int contextBudget, long deadlineMillis, long toolTimeoutMillis,
                          int maxToolResultChars, SamplingParams sampling, Boolean toolsInPrompt) implements CborSerializable {

    /** With the tool block in the system prompt, as every general model needs. */
    public EpisodeSpec(String systemPrompt, String format, List<String> tools, String toolChoice, int maxTurns, int tokenBudget,
                       int contextBudget, long deadlineMillis, long toolTimeoutMillis, int maxToolResultChars, SamplingParams sampling) {
        this(systemPrompt, format, tools, toolChoice, maxTurns, tokenBudget, contextBudget, deadlineMillis, toolTimeoutMillis,
                maxToolResultChars, sampling, true);
    }

    public EpisodeSpec {
        if (maxTurns <= 0) throw new IllegalArgumentException("max-turns must be > 0, got " + maxTurns);
        if (tokenBudget <= 0) throw new IllegalArgumentException("token-budget must be > 0, got " + tokenBudget);
        if (contextBudget <= 0) throw new IllegalArgumentException("context-budget must be > 0, got " + contextBudget);
        if (deadlineMillis <= 0) throw new IllegalArgumentException("deadline must be > 0, got " + deadlineMillis + " ms");
        if (toolTimeoutMillis <= 0) throw new IllegalArgumentException("tool-timeout must be > 0, got " + toolTimeoutMillis + " ms");
        if (maxToolResultChars < 64) throw new IllegalArgumentException("max-tool-result-chars must be >= 64, got " + maxToolResultChars);
        systemPrompt = systemPrompt == null ? "" : systemPrompt;
        tools = tools == null ? List.of() : List.copyOf(tools);
        toolChoice = toolChoice == null ? "auto" : toolChoice;
        sampling = sampling == null ? SamplingParams.DEFAULT : sampling;
        // Absent in specs recorded before the setting existed: they had the block.
        toolsInPrompt = toolsInPrompt == null ? Boolean.TRUE : toolsInPrompt;
    }

    /** Reads an {@code agentswarm.episode}-shaped block (see core's reference.conf). */
    public static EpisodeSpec fromConfig(Config c) {
        return new EpisodeSpec(
                c.getString("system-prompt"),
                c.getString("format"),
                c.getStringList("tools"),
                c.getString("tool-choice"),
                c.getInt("max-turns"),
                c.getInt("token-budget"),
                c.getInt("context-budget"),
                c.getDuration("deadline", TimeUnit.MILLISECONDS),
                c.getDuration("tool-timeout", TimeUnit.MILLISECONDS),
                c.getInt("max-tool-result-chars"),
                SamplingParams.fromConfig(c.getConfig("sampling")),
                c.getBoolean("tools-in-prompt"));
    }

    public EpisodeSpec withTools(List<String> newTools) {
        return new EpisodeSpec(systemPrompt, format, newTools, toolChoice, maxTurns, tokenBudget, contextBudget,
                deadlineMillis, toolTimeoutMillis, maxToolResultChars, sampling, toolsInPrompt);
    }

    public EpisodeSpec withFormat(String newFormat) {
        return new EpisodeSpec(systemPrompt, newFormat, tools, toolChoice, maxTurns, tokenBudget, contextBudget,
                deadlineMillis, toolTimeoutMillis, maxToolResultChars, sampling, toolsInPrompt);
    }

    public EpisodeSpec withSystemPrompt(String prompt) {
        return new EpisodeSpec(prompt, format, tools, toolChoice, maxTurns, tokenBudget, contextBudget,
                deadlineMillis, toolTimeoutMillis, maxToolResultChars, sampling, toolsInPrompt);
    }

    public EpisodeSpec withLimits(int newMaxTurns, int newTokenBudget, int newContextBudget, long newDeadlineMillis,
                                  long newToolTimeoutMillis) {
        return new EpisodeSpec(systemPrompt, format, tools, toolChoice, newMaxTurns, newTokenBudget, newContextBudget,
                newDeadlineMillis, newToolTimeoutMillis, maxToolResultChars, sampling, toolsInPrompt);
    }

    public EpisodeSpec withMaxTurns(int newMaxTurns) {
        return withLimits(newMaxTurns, tokenBudget, contextBudget, deadlineMillis, toolTimeoutMillis);
    }

    public EpisodeSpec withSampling(SamplingParams s) {
        return new EpisodeSpec(systemPrompt, format, tools, toolChoice, maxTurns, tokenBudget, contextBudget,
                deadlineMillis, toolTimeoutMillis, maxToolResultChars, s, toolsInPrompt);
    }
}
