package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
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
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A swarm's events as they happen ({@code trace.jsonl}: one JSON object per line with {@code t_ms}
 * since the swarm started, the {@code agent} path — {@code root}, {@code root/a}, {@code root/c/x} —
 * and the {@code kind}). Every orchestrator of the tree emits here; the events are stamped on the
 * emitting thread and built, written and shown to the listener (the live view) on the trace's own
 * writer thread, so no actor waits on JSON or on the disk. Lines reach the file as they are written,
 * so a swarm that dies leaves what it did. {@link #close} writes what is pending.
 */
public final class SwarmTrace implements AutoCloseable {

    /** How long the writer sleeps when there is nothing to write: emitting never wakes it, which would cost the emitter. */
    private static final long IDLE_NANOS = 1_000_000;

    private final long startNanos = System.nanoTime();
    private final List<ObjectNode> events = new ArrayList<>();
    private final BufferedWriter out;
    private final Consumer<ObjectNode> listener;
    private final ConcurrentLinkedQueue<Runnable> pending = new ConcurrentLinkedQueue<>();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final Thread writer;
    private volatile boolean closing;
    private volatile RuntimeException failure;
    private final boolean discard;

    private SwarmTrace(BufferedWriter out, Consumer<ObjectNode> listener, boolean discard) {
        this.out = out;
        this.listener = listener;
        this.discard = discard;
        this.writer = discard ? null : new Thread(this::drain, "swarm-trace");
        if (writer != null) {
            writer.setDaemon(true);
            writer.start();
        }
    }

    /** A trace that keeps nothing (swarms run as training episodes, by the thousand). */
    public static SwarmTrace none() {
        return new SwarmTrace(null, e -> {}, true);
    }

    /** Events kept in memory only. */
    public static SwarmTrace inMemory() {
        return new SwarmTrace(null, e -> {}, false);
    }

    /** Events appended to {@code file} (read it back with {@link #read}); {@code listener} sees each one (on the writer thread). */
    public static SwarmTrace toFile(Path file, Consumer<ObjectNode> listener) {
        return toFile(file, listener, false);
    }

    /** The same, after the events already in {@code file} when {@code append} (a resumed swarm goes on in its trace). */
    public static SwarmTrace toFile(Path file, Consumer<ObjectNode> listener, boolean append) {
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
            java.nio.file.OpenOption[] how = append
                    ? new java.nio.file.OpenOption[] {java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND}
                    : new java.nio.file.OpenOption[0];
            return new SwarmTrace(Files.newBufferedWriter(file, StandardCharsets.UTF_8, how), listener == null ? e -> {} : listener, false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + e.getMessage(), e);
        }
    }

    public long startNanos() {
        return startNanos;
    }

    /** An event of {@code agent}, to fill and {@link #emit}; its time is set when it is emitted. */
    public ObjectNode event(String agent, String kind) {
        return Json.object().put("t_ms", 0.0).put("agent", agent).put("kind", kind);
    }

    /** Records {@code event} (built with {@link #event}) as happening now. */
    public void emit(ObjectNode event) {
        emitAt(System.nanoTime(), event);
    }

    /** Records {@code event} as happening at {@code nanos} (System.nanoTime). */
    public void emitAt(long nanos, ObjectNode event) {
        submit(() -> record(nanos, event));
    }

    /** Records the event {@code build} makes, as happening now; it is built on the writer thread (frequent events: turns). */
    public void emitLazily(Supplier<ObjectNode> build) {
        long now = System.nanoTime();
        submit(() -> record(now, build.get()));
    }

    /** Every message of an episode that started at {@code episodeStartNanos}, each stamped with its turn's start. */
    public void emitMessages(String agent, long episodeStartNanos, Trajectory t) {
        submit(() -> {
            for (Message m : t.prompt()) {
                record(episodeStartNanos, event(agent, "message").put("turn", 0).put("role", m.role().name().toLowerCase(Locale.ROOT))
                        .put("content", m.content()));
            }
            int turn = 0;
            for (Turn x : t.turns()) {
                if (x.isAssistant()) turn++;
                ObjectNode e = event(agent, "message").put("turn", turn).put("role", x.role().name().toLowerCase(Locale.ROOT))
                        .put("content", x.text());
                if (!x.toolCalls().isEmpty()) {
                    ArrayNode calls = e.putArray("tool_calls");
                    for (ToolCall c : x.toolCalls()) calls.addObject().put("name", c.name()).set("arguments", c.arguments());
                }
                // Calls a crash cut short and that were not run again: their effect is unknown.
                List<String> interrupted = x.toolResults().stream().filter(r -> r.status() == ToolStatus.INTERRUPTED)
                        .map(ToolResult::callId).toList();
                if (!interrupted.isEmpty()) interrupted.forEach(e.putArray("interrupted")::add);
                record(episodeStartNanos + x.timing().startNanos(), e);
            }
        });
    }

    private void submit(Runnable r) {
        if (discard) return;
        if (closing) throw new IllegalStateException("the trace is closed");
        submitted.incrementAndGet();
        pending.add(r);
    }

    private void drain() {
        while (true) {
            Runnable r;
            boolean wrote = false;
            while ((r = pending.poll()) != null) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    if (failure == null) failure = e; // reported by events() and close(); the writer goes on
                }
                written.incrementAndGet();
                wrote = true;
            }
            // Out of the buffer whenever the writer catches up: a process that dies leaves its trace up to then.
            if (wrote && out != null) {
                try {
                    out.flush();
                } catch (IOException e) {
                    if (failure == null) failure = new UncheckedIOException("cannot append to the trace: " + e.getMessage(), e);
                }
            }
            if (closing && pending.isEmpty()) return;
            LockSupport.parkNanos(IDLE_NANOS);
        }
    }

    /** On the writer thread only. */
    private void record(long nanos, ObjectNode event) {
        ObjectNode line = event.put("t_ms", Math.round((nanos - startNanos) / 1e3) / 1e3);
        if (out == null) {
            synchronized (events) {
                events.add(line);
            }
        } else {
            try {
                out.write(Json.write(line));
                out.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to the trace: " + e.getMessage(), e);
            }
        }
        listener.accept(line);
    }

    /** Waits until everything emitted so far is written. */
    public void flush() {
        long target = submitted.get();
        while (written.get() < target) {
            if (writer == null || !writer.isAlive()) break;
            LockSupport.parkNanos(IDLE_NANOS / 4);
        }
        if (failure != null) throw failure;
    }

    /** The events emitted so far, once written; an in-memory trace's only (a file trace is read back with {@link #read}). */
    public List<ObjectNode> events() {
        flush();
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /**
     * The trace without its clock: times and durations dropped, each agent's events in the order it
     * had them, agents in path order. Two runs that did the same thing give the same canonical trace
     * whatever the thread interleaving — what a replay is checked against.
     */
    public List<JsonNode> canonical() {
        return canonical(events());
    }

    /** {@link #canonical()} of events read back from a {@code trace.jsonl}. */
    public static List<JsonNode> canonical(List<? extends JsonNode> events) {
        Map<String, List<JsonNode>> byAgent = new LinkedHashMap<>();
        for (JsonNode e : events) {
            ObjectNode c = ((ObjectNode) e).deepCopy();
            c.remove("t_ms");
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

    /** Reads a {@code trace.jsonl} back (blank lines skipped); a line that is not a JSON object is an error naming it. */
    public static List<JsonNode> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the trace " + file + ": " + e.getMessage(), e);
        }
        List<JsonNode> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) continue;
            JsonNode event;
            try {
                event = Json.parse(lines.get(i));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": not valid JSON: " + e.getOriginalMessage(), e);
            }
            if (!event.isObject()) throw new IllegalArgumentException(file + " line " + (i + 1) + ": not a JSON object");
            out.add(event);
        }
        return out;
    }


    /** Writes what is pending, stops the writer and closes the file. */
    @Override
    public void close() {
        if (closing) return;
        closing = true;
        if (writer != null) {
            LockSupport.unpark(writer);
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (failure != null) throw failure;
    }
}
