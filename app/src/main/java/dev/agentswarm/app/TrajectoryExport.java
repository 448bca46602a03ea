package dev.agentswarm.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.learner.data.Conversation;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's trajectories in the formats Python trainers read: Hugging Face {@code messages} (SFT on
 * the answered episodes that reached a reward) and TRL's conversational preference format
 * ({@code prompt} / {@code chosen} / {@code rejected}: per group, its best first answer over its
 * worst, when their rewards differ by at least a gap).
 */
public final class TrajectoryExport {

    private TrajectoryExport() {}

    /** Every trajectory of a {@code trajectories.jsonl}; a torn last line (a crash mid-write) is skipped, any other bad line fails. */
    public static List<Trajectory> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Trajectory> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) continue;
            try {
                out.add(Json.MAPPER.readValue(lines.get(i), Trajectory.class));
            } catch (IOException e) {
                if (i == lines.size() - 1) break;
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": not a trajectory: " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** Answered episodes with a reward of at least {@code minReward}, as {@code messages} records. */
    public static List<ObjectNode> messages(List<Trajectory> trajectories, double minReward) {
        List<ObjectNode> out = new ArrayList<>();
        for (Trajectory t : trajectories) {
            if (t.stopReason() != StopReason.FINAL_ANSWER || t.reward() == null || t.reward().total() < minReward) continue;
            out.add(new Conversation(t.transcript(), List.of()).toHuggingFace());
        }
        return out;
    }

    /** One preference record per group whose best and worst first answers are at least {@code minGap} apart in reward. */
    public static List<ObjectNode> preferences(List<Trajectory> trajectories, double minGap) {
        Map<String, List<Trajectory>> groups = new LinkedHashMap<>();
        for (Trajectory t : trajectories) {
            if (t.reward() != null && !t.assistantTurns().isEmpty()) groups.computeIfAbsent(t.groupId(), g -> new ArrayList<>()).add(t);
        }
        List<ObjectNode> out = new ArrayList<>();
        for (List<Trajectory> g : groups.values()) {
            if (g.size() < 2) continue;
            g.sort(Comparator.comparingDouble(t -> -t.reward().total()));
            Trajectory best = g.get(0);
            Trajectory worst = g.get(g.size() - 1);
            if (best.reward().total() - worst.reward().total() < minGap) continue;
            ObjectNode r = Json.object();
            ArrayNode prompt = r.putArray("prompt");
            for (Message m : best.prompt()) prompt.addObject().put("role", m.role().wire()).put("content", m.content());
            r.putArray("chosen").addObject().put("role", Role.ASSISTANT.wire()).put("content", firstAnswer(best));
            r.putArray("rejected").addObject().put("role", Role.ASSISTANT.wire()).put("content", firstAnswer(worst));
            r.put("chosen_reward", best.reward().total()).put("rejected_reward", worst.reward().total()).put("group", best.groupId());
            out.add(r);
        }
        return out;
    }

    private static String firstAnswer(Trajectory t) {
        Turn first = t.assistantTurns().get(0);
        return first.text();
    }

    public static void write(List<ObjectNode> records, Path out) throws IOException {
        if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent());
        try (var w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (ObjectNode r : records) {
                w.write(Json.write(r));
                w.newLine();
            }
        }
    }
}
