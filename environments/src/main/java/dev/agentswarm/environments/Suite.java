package dev.agentswarm.environments;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.tool.Tool;
import java.util.List;
import java.util.Optional;

/**
 * What a swarm is trained and judged on: it makes tasks, gives their episodes a tool-call format,
 * tools and limits, scores finished episodes, and (for generated suites) solves its own tasks
 * through the real tools to produce demonstrations. A suite is thread-safe: one instance serves
 * every episode on a node.
 */
public interface Suite {

    /** The name tasks carry in their {@link Task#SUITE} metadata and the CLI takes. */
    String name();

    /** One line for listings. */
    String description();

    /**
     * Up to {@code limit} tasks of a split, the same ones in the same order for the same
     * configuration (generated suites draw them from their seed). Each carries this suite's name
     * and the split in its metadata.
     */
    List<Task> tasks(Split split, int limit);

    /** The spec an episode of this suite runs with: {@code defaults} with the suite's format, prompt, tools and limits. */
    EpisodeSpec spec(EpisodeSpec defaults);

    /**
     * The tools this suite's episodes call, offered by the node. Tools with per-episode state find
     * it through the episode id of their {@link dev.agentswarm.core.tool.ToolContext}.
     */
    List<Tool> tools();

    /**
     * The environment of one episode: state set up for the task and the scoring of the result.
     * Throws {@link IllegalArgumentException} when the task is malformed for this suite.
     */
    TaskEnvironment open(Task task, String episodeId);

    /** The reward components its evaluation table shows first, in order (the seed's columns). */
    default List<String> reportColumns() {
        return List.of("pass");
    }

    /** The task metadata key its evaluation groups by (e.g. {@code category}, {@code hops}), or null. */
    default String categoryKey() {
        return null;
    }

    /**
     * The benchmark's own headline figures from the share of episodes that passed in each category and
     * the episodes per category (BFCL's non-live AST summary, say), in the order its leaderboard shows
     * them; empty when the suite has none beyond the per-category table.
     */
    default java.util.Map<String, Double> summary(java.util.Map<String, Double> passByCategory,
                                                  java.util.Map<String, Integer> countByCategory) {
        return java.util.Map.of();
    }

    /** The oracle that solves this suite's tasks through the real tools, when it has one. */
    default Optional<Oracle> oracle() {
        return Optional.empty();
    }
}
