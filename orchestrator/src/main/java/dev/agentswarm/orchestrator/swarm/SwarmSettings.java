package dev.agentswarm.orchestrator.swarm;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.SpawnSubAgentsTool;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a swarm runs: its budgets, depth limit, retries, the tools sub-agents may be given, and the
 * episode of each role (the orchestrator's and each mode's system prompt and default tools) built
 * on the node's {@code agentswarm.episode} settings. Read from {@code agentswarm.swarm}.
 */
public record SwarmSettings(SwarmBudget budget, int maxDepth, int retries, Duration lostAfter, Set<String> tools,
                            int maxAnswerChars, EpisodeSpec base, String orchestratorPrompt, int orchestratorMaxTurns,
                            Map<SubAgentMode, String> prompts, Map<SubAgentMode, List<String>> modeTools, Parl parl) {

    /** PARL's shaping weights, annealed to 0 over {@code annealSteps} training steps. */
    public record Parl(double lambdaParallel, double lambdaFinish, long annealSteps, int parallelTarget) {
        public Parl {
            if (lambdaParallel < 0 || lambdaFinish < 0) throw new IllegalArgumentException("PARL lambdas must be >= 0");
            if (annealSteps < 0) throw new IllegalArgumentException("anneal-steps must be >= 0, got " + annealSteps);
            if (parallelTarget < 1) throw new IllegalArgumentException("parallel-target must be >= 1, got " + parallelTarget);
        }

        static Parl fromConfig(Config c) {
            return new Parl(c.getDouble("lambda-parallel"), c.getDouble("lambda-finish"), c.getLong("anneal-steps"),
                    c.getInt("parallel-target"));
        }
    }

    public SwarmSettings {
        if (maxDepth < 1) throw new IllegalArgumentException("max-depth must be >= 1, got " + maxDepth);
        if (retries < 0) throw new IllegalArgumentException("retries must be >= 0, got " + retries);
        if (maxAnswerChars < 16) throw new IllegalArgumentException("max-answer-chars must be >= 16, got " + maxAnswerChars);
        if (orchestratorMaxTurns < 1) throw new IllegalArgumentException("orchestrator.max-turns must be >= 1");
        tools = Set.copyOf(tools);
        prompts = Map.copyOf(prompts);
        modeTools = Map.copyOf(modeTools);
    }

    /**
     * Reads {@code agentswarm.swarm} (and {@code agentswarm.episode} for the episodes' base);
     * {@code nodeTools} are the tools the workers offer, used when {@code tools} is empty.
     */
    public static SwarmSettings fromConfig(Config config, Set<String> nodeTools) {
        Config c = config.getConfig("agentswarm.swarm");
        Set<String> tools = new LinkedHashSet<>(c.getStringList("tools"));
        if (tools.isEmpty()) tools.addAll(nodeTools);
        tools.remove(SpawnSubAgentsTool.NAME); // nesting is a mode, not a tool
        Map<SubAgentMode, String> prompts = new EnumMap<>(SubAgentMode.class);
        Map<SubAgentMode, List<String>> modeTools = new EnumMap<>(SubAgentMode.class);
        for (SubAgentMode m : SubAgentMode.values()) {
            if (m == SubAgentMode.ORCHESTRATOR) continue;
            Config mc = c.getConfig("modes." + m.wire());
            prompts.put(m, orBuiltIn(mc.getString("system-prompt"), m.wire()));
            modeTools.put(m, mc.getStringList("tools"));
        }
        return new SwarmSettings(SwarmBudget.fromConfig(c), c.getInt("max-depth"), c.getInt("retries"),
                c.getDuration("lost-after"), tools, c.getInt("max-answer-chars"),
                EpisodeSpec.fromConfig(config.getConfig("agentswarm.episode")),
                orBuiltIn(c.getString("orchestrator.system-prompt"), "orchestrator"), c.getInt("orchestrator.max-turns"),
                prompts, modeTools, Parl.fromConfig(c.getConfig("parl")));
    }

    public SwarmSettings withBudget(SwarmBudget b) {
        return new SwarmSettings(b, maxDepth, retries, lostAfter, tools, maxAnswerChars, base, orchestratorPrompt,
                orchestratorMaxTurns, prompts, modeTools, parl);
    }

    /** An orchestrator's episode: its prompt, spawn_subagents and finish, and a spawn call may take all the time it has. */
    public EpisodeSpec orchestratorSpec(long deadlineMillis, int maxTurns) {
        return base.withSystemPrompt(orchestratorPrompt)
                .withTools(List.of(SpawnSubAgentsTool.NAME, FinishTool.NAME))
                .withLimits(Math.max(1, maxTurns), base.tokenBudget(), base.contextBudget(), deadlineMillis, deadlineMillis);
    }

    /**
     * A sub-agent's episode: its mode's prompt; the sub-task's tools, else the mode's defaults the node
     * offers, else every tool sub-agents may have; always finish; limits no larger than what is left.
     */
    public EpisodeSpec subAgentSpec(SubTask task, int maxTurns, int tokenBudget, long deadlineMillis) {
        List<String> chosen = new ArrayList<>(task.tools());
        if (chosen.isEmpty()) {
            for (String t : modeTools.getOrDefault(task.mode(), List.of())) if (tools.contains(t)) chosen.add(t);
        }
        if (chosen.isEmpty()) chosen.addAll(tools);
        if (!chosen.contains(FinishTool.NAME)) chosen.add(FinishTool.NAME);
        return base.withSystemPrompt(prompts.get(task.mode()))
                .withTools(chosen)
                .withLimits(Math.max(1, Math.min(base.maxTurns(), maxTurns)), Math.max(1, Math.min(base.tokenBudget(), tokenBudget)),
                        base.contextBudget(), Math.max(1, Math.min(base.deadlineMillis(), deadlineMillis)),
                        Math.max(1, Math.min(base.toolTimeoutMillis(), deadlineMillis)));
    }

    /** The built-in prompt of a role when the configured one is empty. */
    static String orBuiltIn(String configured, String role) {
        if (configured != null && !configured.isBlank()) return configured;
        try (InputStream in = SwarmSettings.class.getResourceAsStream(role + ".txt")) {
            if (in == null) throw new IllegalStateException("no built-in prompt for " + role);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
