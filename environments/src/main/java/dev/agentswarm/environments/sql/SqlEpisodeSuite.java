package dev.agentswarm.environments.sql;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.EpisodeStates;
import dev.agentswarm.environments.Suite;
import java.util.List;

/**
 * What the SQL suites share: a fresh database per episode ({@link SqlEpisode}), the
 * {@code execute_sql} and {@code commit_final_answer} tools with one schema, AgentBench's prompt and
 * scoring. Subclasses say where tasks come from and how their oracle solves them.
 */
abstract class SqlEpisodeSuite implements Suite {

    private final String name;
    private final int maxTurns;
    private final RewardWeights weights;
    private final EpisodeStates<SqlEpisode> episodes;
    private final List<Tool> tools;

    SqlEpisodeSuite(String name, int maxTurns, RewardWeights weights) {
        if (maxTurns < 3) {
            throw new IllegalArgumentException(name + ": max-turns must be >= 3 (query, commit, close), got " + maxTurns);
        }
        weights.requireKnown(name, SqlEpisode.COMPONENTS);
        this.name = name;
        this.maxTurns = maxTurns;
        this.weights = weights;
        this.episodes = new EpisodeStates<>(name);
        this.tools = SqlTools.tools(episodes);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(HermesFormat.NAME)
                .withTools(List.of(SqlTools.EXECUTE_SQL, SqlTools.COMMIT_FINAL_ANSWER))
                .withSystemPrompt(SqlSuite.SYSTEM_PROMPT)
                .withMaxTurns(maxTurns);
    }

    @Override
    public final List<Tool> tools() {
        return tools;
    }

    @Override
    public final TaskEnvironment open(Task task, String episodeId) {
        return SqlEpisode.open(task, episodeId, episodes, weights, name);
    }

    @Override
    public final List<String> reportColumns() {
        return List.of("pass", "correct", "committed", "format", "tool_call");
    }

    @Override
    public final String categoryKey() {
        return SqlTasks.TYPE;
    }

    /** Episodes open now (for tests and metrics). */
    final int openEpisodes() {
        return episodes.open();
    }
}
