package dev.agentswarm.core.environment;

import dev.agentswarm.core.protocol.Task;
import java.util.Optional;

/**
 * What a node offers episodes whose task belongs to a suite (named by the task's {@link Task#SUITE}
 * metadata): the environment that episode's tools and reward work in.
 */
public interface TaskEnvironments {

    /** A node without suites: every task runs with the node's tools alone and no reward. */
    TaskEnvironments NONE = (task, episodeId) -> Optional.empty();

    /**
     * The environment of one episode of {@code task}, empty when the task names no suite. Throws
     * {@link IllegalArgumentException} naming the suite when the task names one this node lacks, or
     * when the task is malformed for its suite.
     */
    Optional<TaskEnvironment> open(Task task, String episodeId);
}
