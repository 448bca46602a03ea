package dev.agentswarm.testkit;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.List;

/**
 * One line of a run recording (JSONL). {@code kind} says which fields are set:
 * {@code tools} (the tool specs offered), {@code episode} (a request: task and spec),
 * {@code completion} / {@code policy-error} (what the policy answered on a turn),
 * {@code tool} (what a tool returned, failed with, or that it never completed) and
 * {@code trajectory} (what the episode produced, for comparison on replay). A policy error's
 * {@code retryable} says whether the episode took it for its infrastructure's and asked again.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RecordedLine(String kind, String episode, Integer turn, Integer call, String name,
                           Completion completion, String result, String error, Boolean hung,
                           String groupId, Task task, EpisodeSpec spec, List<ToolSpec> tools,
                           Trajectory trajectory, Boolean retryable) {

    public RecordedLine(String kind, String episode, Integer turn, Integer call, String name, Completion completion, String result,
                        String error, Boolean hung, String groupId, Task task, EpisodeSpec spec, List<ToolSpec> tools,
                        Trajectory trajectory) {
        this(kind, episode, turn, call, name, completion, result, error, hung, groupId, task, spec, tools, trajectory, null);
    }

    static final String TOOLS = "tools";
    static final String EPISODE = "episode";
    static final String COMPLETION = "completion";
    static final String POLICY_ERROR = "policy-error";
    static final String TOOL = "tool";
    static final String TRAJECTORY = "trajectory";

    static RecordedLine tools(List<ToolSpec> specs) {
        return new RecordedLine(TOOLS, null, null, null, null, null, null, null, null, null, null, null, specs, null);
    }

    static RecordedLine episode(String episodeId, String groupId, Task task, EpisodeSpec spec) {
        return new RecordedLine(EPISODE, episodeId, null, null, null, null, null, null, null, groupId, task, spec, null, null);
    }

    static RecordedLine completion(String episodeId, int turn, Completion c) {
        return new RecordedLine(COMPLETION, episodeId, turn, null, null, c, null, null, null, null, null, null, null, null);
    }

    static RecordedLine policyError(String episodeId, int turn, String error, boolean retryable) {
        return new RecordedLine(POLICY_ERROR, episodeId, turn, null, null, null, null, error, null, null, null, null, null, null,
                retryable ? Boolean.TRUE : null);
    }

    static RecordedLine tool(String episodeId, int turn, int call, String name, String result, String error, boolean hung) {
        return new RecordedLine(TOOL, episodeId, turn, call, name, null, result, error, hung ? Boolean.TRUE : null,
                null, null, null, null, null);
    }

    static RecordedLine trajectory(Trajectory t) {
        return new RecordedLine(TRAJECTORY, t.episodeId(), null, null, null, null, null, null, null, null, null, null, null, t);
    }
}
