package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A swarm's events as they happen ({@code trace.jsonl}: one JSON object per line with {@code t_ms}
 * since the swarm started, the {@code agent} path — {@code root}, {@code root/a}, {@code root/c/x} —
 * and the {@code kind}). Every orchestrator of the tree writes here, so it is thread-safe; lines
 * reach the file as they happen, so a swarm that dies leaves what it did. A listener (the live view)
 * sees each event too.
 */
public final class SwarmTrace implements AutoCloseable {

    private final long startNanos = System.nanoTime();
    private final List<ObjectNode> events = new ArrayList<>();
    private final BufferedWriter out;
    private final Consumer<ObjectNode> listener;

    private SwarmTrace(BufferedWriter out, Consumer<ObjectNode> listener) {
        this.out = out;
        this.listener = listener;
    }

    /** Events kept in memory only. */
    public static SwarmTrace inMemory() {
        return new SwarmTrace(null, e -> {});
    }

    /** Events kept in memory and appended to {@code file}; {@code listener} sees each one (on the emitting thread). */
    public static SwarmTrace toFile(Path file, Consumer<ObjectNode> listener) {
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
            return new SwarmTrace(Files.newBufferedWriter(file, StandardCharsets.UTF_8), listener == null ? e -> {} : listener);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + e.getMessage(), e);
        }
    }

    public long startNanos() {
        return startNanos;
    }

    /** An event now. */
    public ObjectNode event(String agent, String kind) {
        return Json.object().put("agent", agent).put("kind", kind);
    }

    /** Records {@code event} (built with {@link #event}) as happening now. */
    public void emit(ObjectNode event) {
        emitAt(System.nanoTime(), event);
    }

    /** Records {@code event} as happening at {@code nanos} (System.nanoTime): messages are stamped with their turn's start. */
    public synchronized void emitAt(long nanos, ObjectNode event) {
        ObjectNode line = Json.object().put("t_ms", Math.round((nanos - startNanos) / 1e3) / 1e3);
        line.setAll(event);
        events.add(line);
        if (out != null) {
            try {
                out.write(Json.write(line));
                out.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to the trace: " + e.getMessage(), e);
            }
        }
        listener.accept(line);
    }

    public synchronized List<ObjectNode> events() {
        return List.copyOf(events);
    }

    /**
     * The trace without its clock: times and durations dropped, each agent's events in the order it
     * had them, agents in path order. Two runs that did the same thing give the same canonical trace
     * whatever the thread interleaving — what a replay is checked against.
     */
    public synchronized List<JsonNode> canonical() {
        return canonical(new ArrayList<>(events));
    }

    /** {@link #canonical()} of events read back from a {@code trace.jsonl}. */
    public static List<JsonNode> canonical(List<? extends JsonNode> events) {
        Map<String, List<JsonNode>> byAgent = new LinkedHashMap<>();
        for (JsonNode e : events) {
            ObjectNode c = ((ObjectNode) e).deepCopy();
            for (String timed : List.of("t_ms", "wall_ms", "serial_ms", "duration_ms")) c.remove(timed);
            if (c.get("metrics") instanceof ObjectNode m) {
                for (String timed : List.of("wall_ms", "serial_ms", "wall_over_serial")) m.remove(timed);
            }
            byAgent.computeIfAbsent(e.path("agent").asText(), k -> new ArrayList<>()).add(c);
        }
        List<JsonNode> out = new ArrayList<>();
        byAgent.entrySet().stream().sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
                .forEach(en -> out.addAll(en.getValue()));
        return out;
    }

    /** Reads a {@code trace.jsonl} back; a torn last line (the process died mid-write) is left out. */
    public static List<JsonNode> read(Path file) {
        List<JsonNode> out = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank()) continue;
                try {
                    out.add(Json.parse(lines.get(i)));
                } catch (IOException e) {
                    if (i == lines.size() - 1) break;
                    throw new IllegalArgumentException(file + " line " + (i + 1) + " is not JSON: " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the trace " + file + ": " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public synchronized void close() {
        if (out == null) return;
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
