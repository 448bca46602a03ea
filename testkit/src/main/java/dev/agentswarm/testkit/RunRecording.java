package dev.agentswarm.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A run recorded by {@link RunRecorder}, loaded for replay: a policy and tools that answer
 * exactly as recorded, looked up by episode, turn and call position, and the recorded requests
 * and trajectories to run again and compare with.
 */
public final class RunRecording {

    /** An episode as it was requested. */
    public record Episode(String episodeId, String groupId, dev.agentswarm.core.protocol.Task task,
                          dev.agentswarm.core.protocol.EpisodeSpec spec) {}

    private final List<Episode> episodes = new ArrayList<>();
    private final List<ToolSpec> toolSpecs = new ArrayList<>();
    private final Map<String, RecordedLine> answers = new HashMap<>();
    private final Map<String, RecordedLine> toolOutcomes = new HashMap<>();
    private final Map<String, Trajectory> trajectories = new LinkedHashMap<>();

    private RunRecording() {}

    /** Loads a recording, failing with the file and line number on a malformed line. */
    public static RunRecording load(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read recording " + file + ": " + e.getMessage(), e);
        }
    }

    /** Loads a recording shipped on the class path (the demo's). */
    public static RunRecording fromResource(String resource) {
        var stream = RunRecording.class.getClassLoader().getResourceAsStream(resource);
        if (stream == null) throw new IllegalArgumentException("no recording " + resource + " on the class path");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            return read(in, resource);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read recording " + resource + ": " + e.getMessage(), e);
        }
    }

    private static RunRecording read(BufferedReader in, String source) throws IOException {
        RunRecording r = new RunRecording();
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
            n++;
            if (line.isBlank()) continue;
            RecordedLine l;
            try {
                l = Json.MAPPER.readValue(line, RecordedLine.class);
            } catch (IOException e) {
                throw new IllegalArgumentException(source + ":" + n + ": not a recording line: " + e.getMessage(), e);
            }
            r.add(l, source, n);
        }
        return r;
    }

    private void add(RecordedLine l, String file, int n) {
        if (l.kind() == null) throw new IllegalArgumentException(file + ":" + n + ": line has no 'kind'");
        switch (l.kind()) {
            case RecordedLine.TOOLS -> {
                for (ToolSpec s : l.tools()) {
                    if (toolSpecs.stream().noneMatch(t -> t.name().equals(s.name()))) toolSpecs.add(s);
                }
            }
            case RecordedLine.EPISODE -> episodes.add(new Episode(l.episode(), l.groupId(), l.task(), l.spec()));
            case RecordedLine.COMPLETION, RecordedLine.POLICY_ERROR -> answers.put(turnKey(l.episode(), l.turn()), l);
            case RecordedLine.TOOL -> toolOutcomes.put(callKey(l.episode(), l.turn(), l.call()), l);
            case RecordedLine.TRAJECTORY -> trajectories.put(l.episode(), l.trajectory());
            default -> throw new IllegalArgumentException(file + ":" + n + ": unknown kind '" + l.kind() + "'");
        }
    }

    public List<Episode> episodes() {
        return List.copyOf(episodes);
    }

    /** The recorded trajectory of each episode, by episode id. */
    public Map<String, Trajectory> trajectories() {
        return Map.copyOf(trajectories);
    }

    /** A policy that answers each (episode, turn) exactly as recorded. */
    public Policy policy() {
        return new Policy() {
            @Override
            public CompletionStage<Completion> complete(CompletionRequest req) {
                RecordedLine l = answers.get(turnKey(req.episodeId(), req.turn()));
                if (l == null) {
                    return CompletableFuture.failedFuture(new PolicyException("the recording has no answer for episode "
                            + req.episodeId() + " turn " + req.turn() + ": the replay diverged from the recorded run", false));
                }
                if (l.completion() == null) {
                    return CompletableFuture.failedFuture(new PolicyException(l.error(), Boolean.TRUE.equals(l.retryable())));
                }
                return CompletableFuture.completedFuture(l.completion());
            }

            @Override
            public String describe() {
                return "replay";
            }
        };
    }

    /** Tools with the recorded specs that return, fail or hang exactly as recorded. */
    public ToolRegistry tools() {
        return ToolRegistry.of(toolSpecs.stream().map(this::replaying).toList());
    }

    private Tool replaying(ToolSpec spec) {
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            /** A replayed outcome has no effect. */
            @Override
            public boolean idempotent(JsonNode arguments) {
                return true;
            }

            @Override
            public CompletionStage<String> invoke(JsonNode arguments, ToolContext ctx) {
                RecordedLine l = toolOutcomes.get(callKey(ctx.episodeId(), ctx.turn(), ctx.callIndex()));
                if (l == null) {
                    return CompletableFuture.failedFuture(new IllegalStateException("the recording has no outcome for "
                            + spec.name() + " in episode " + ctx.episodeId() + " turn " + ctx.turn() + " call " + ctx.callIndex()));
                }
                if (Boolean.TRUE.equals(l.hung())) return new CompletableFuture<>();
                if (l.error() != null) return CompletableFuture.failedFuture(new ReplayedToolFailure(l.error()));
                return CompletableFuture.completedFuture(l.result());
            }
        };
    }

    /** The failure a tool had when recorded, with its message unchanged. */
    static final class ReplayedToolFailure extends RuntimeException {
        ReplayedToolFailure(String message) {
            super(message, null, false, false);
        }
    }

    private static String turnKey(String episode, Integer turn) {
        return episode + '\u0000' + turn;
    }

    private static String callKey(String episode, Integer turn, Integer call) {
        return episode + '\u0000' + turn + '\u0000' + call;
    }
}
