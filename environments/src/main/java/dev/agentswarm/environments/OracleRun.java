package dev.agentswarm.environments;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.ParsedCompletion;
import dev.agentswarm.core.format.ToolCallFormat;
import dev.agentswarm.core.format.ToolCallFormats;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolExecutor;
import dev.agentswarm.core.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a suite's oracle on one task synchronously, without a node: the oracle's moves are written
 * in the suite's format, parsed back, its calls executed by the suite's real tools (validated and
 * time-limited as in an episode), the results fed back in the format, and the finished trajectory
 * scored by the task's environment. For tests ("the oracle scores 1.0 on every task") and for
 * rendering demonstrations; the actor runtime does the same with {@link OraclePolicy}.
 */
public final class OracleRun {

    private OracleRun() {}

    /** The scored trajectory of the oracle on {@code task}; throws when a move cannot be parsed back. */
    public static Trajectory run(Suite suite, Task task, EpisodeSpec defaults, Noise noise) {
        Oracle oracle = suite.oracle().orElseThrow(() -> new IllegalArgumentException("suite " + suite.name() + " has no oracle"));
        EpisodeSpec spec = suite.spec(defaults);
        ToolCallFormat format = ToolCallFormats.byName(spec.format());
        ToolRegistry tools = ToolRegistry.of(suite.tools()).select(spec.tools());
        ToolExecutor executor = new ToolExecutor(tools, spec.maxToolResultChars(), spec.toolTimeoutMillis());
        String episodeId = "oracle-" + task.id();
        List<Message> prompt = List.of(Message.system(spec.systemPrompt()), Message.user(task.prompt()));
        List<Message> conversation = new ArrayList<>(prompt);
        List<Turn> turns = new ArrayList<>();
        int toolCalls = 0;
        int toolSuccesses = 0;
        try (TaskEnvironment env = suite.open(task, episodeId)) {
            for (int turn = 1; turn <= spec.maxTurns(); turn++) {
                Oracle.Step step = oracle.next(task, List.copyOf(conversation), noise);
                Completion written = format.write(step.thought(), step.calls(), step.answer());
                ParsedCompletion parsed = format.parse(written, tools.specs());
                if (parsed.hasErrors()) {
                    throw new IllegalStateException("the oracle's move on " + task.id() + " does not parse: " + parsed.errors());
                }
                turns.add(Turn.assistant(turns.size(), written, parsed.toolCalls(), List.of(), null, null));
                conversation.add(format.assistantMessage(written, parsed));
                if (parsed.hasFinalAnswer()) {
                    EpisodeStats stats = new EpisodeStats(turn, toolCalls, toolSuccesses, 0, 0, 0, 0);
                    Trajectory t = new Trajectory(episodeId, task.id(), task.id(), prompt, turns, parsed.finalAnswer(),
                            StopReason.FINAL_ANSWER, null, stats, null);
                    return t.withReward(env.score(t));
                }
                List<ToolResult> results = new ArrayList<>();
                for (int i = 0; i < parsed.toolCalls().size(); i++) {
                    var call = parsed.toolCalls().get(i);
                    ToolContext ctx = new ToolContext(episodeId, turn, i, call.id(), spec.toolTimeoutMillis());
                    ToolResult r = executor.execute(call, ctx).toCompletableFuture().get(spec.toolTimeoutMillis() + 5000, TimeUnit.MILLISECONDS);
                    results.add(r);
                    toolCalls++;
                    if (r.ok()) toolSuccesses++;
                }
                List<Message> obs = format.observations(results);
                turns.add(Turn.observation(turns.size(), obs.get(0).role(),
                        String.join("\n", obs.stream().map(Message::content).toList()), results, null));
                conversation.addAll(obs);
            }
            throw new IllegalStateException("the oracle did not finish " + task.id() + " within " + spec.maxTurns() + " turns");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a tool call of the oracle on " + task.id() + " failed: " + e, e);
        } finally {
            tools.release(episodeId);
        }
    }
}
