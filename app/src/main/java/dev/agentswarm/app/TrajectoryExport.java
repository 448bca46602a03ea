package dev.agentswarm.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.learner.data.Conversation;
import dev.agentswarm.learner.rl.PreferencePairs;
import dev.agentswarm.learner.rl.RejectionSampling;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's trajectories in the formats Python trainers read: Hugging Face {@code messages} (SFT on
 * the answered, scored episodes that reached a reward) and TRL's conversational preference format
 * ({@code prompt} / {@code chosen} / {@code rejected}: per group, its best first answer over its
 * worst, when their rewards differ by at least a gap).
 */
public final class TrajectoryExport {

    private TrajectoryExport() {}

    /** Every trajectory of a {@code trajectories.jsonl}, read line by line; a torn last line (a crash mid-write) is skipped, any other bad line fails. */
    public static List<Trajectory> read(Path file) throws IOException {
        List<Trajectory> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line = in.readLine();
            int number = 1;
            while (line != null) {
                String next = in.readLine();
                if (!line.isBlank()) {
                    try {
                        out.add(Json.MAPPER.readValue(line, Trajectory.class));
                    } catch (IOException e) {
                        if (next != null) throw new IllegalArgumentException(file + ":" + number + ": not a trajectory: " + e.getMessage(), e);
                    }
                }
                line = next;
                number++;
            }
        }
        return out;
    }

    /** One episode's transcript as a Hugging Face {@code messages} record. */
    public static ObjectNode toMessages(Trajectory t) {
        return new Conversation(t.transcript(), List.of()).toHuggingFace();
    }

    /**
     * Answered, scored episodes with a reward of at least {@code minReward}, at most {@code perTask} of
     * each task, as {@code messages} records: rejection sampling's selection (RFT's SFT data).
     */
    public static List<ObjectNode> messages(List<Trajectory> trajectories, double minReward, int perTask) {
        return RejectionSampling.keep(trajectories, minReward, perTask).stream().map(Conversation::toHuggingFace).toList();
    }

    /** One preference record per group whose best and worst first answers are at least {@code minGap} apart in reward. */
    public static List<ObjectNode> preferences(List<Trajectory> trajectories, double minGap) {
        Map<String, List<Trajectory>> groups = new LinkedHashMap<>();
        for (Trajectory t : trajectories) groups.computeIfAbsent(t.groupId(), g -> new ArrayList<>()).add(t);
        List<ObjectNode> out = new ArrayList<>();
        for (List<Trajectory> g : groups.values()) {
            PreferencePairs.Extremes e = PreferencePairs.Extremes.of(g, minGap, t -> true).orElse(null);
            if (e == null) continue;
            ObjectNode r = Json.object();
            ArrayNode prompt = r.putArray("prompt");
            for (Message m : e.best().prompt()) prompt.addObject().put("role", m.role().wire()).put("content", m.content());
            r.putArray("chosen").addObject().put("role", Role.ASSISTANT.wire()).put("content", e.best().assistantTurns().get(0).text());
            r.putArray("rejected").addObject().put("role", Role.ASSISTANT.wire()).put("content", e.worst().assistantTurns().get(0).text());
            r.put("chosen_reward", e.best().reward().total()).put("rejected_reward", e.worst().reward().total()).put("group", e.best().groupId());
            out.add(r);
        }
        return out;
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
