package dev.agentswarm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A stateful sandbox, like a code interpreter: one long-lived Python interpreter under the
 * sandbox's isolation and limits, kept for an episode. Python cells share their variables; bash
 * cells run beside them in the same work folder; files go in and out of that folder. A cell that
 * hits its wall or CPU limit is interrupted and the variables stay; an interpreter that dies (or a
 * cell that will not stop) is replaced by a fresh one on the next call, and the caller is told that
 * earlier variables and files are gone. Calls run one at a time, in order. Close it when the
 * episode ends; one left idle past {@code session-idle-timeout} is closed by the sandbox.
 */
public final class SandboxSession implements AutoCloseable {

    /** A cell's source travels in a JSON line, not an argument: it may be larger than a fresh run's. */
    public static final int MAX_CELL_BYTES = 1 << 20;

    static final String RESTARTED = "[the session's interpreter stopped; the next call starts a new one: "
            + "variables and files from earlier calls are gone]";

    private final Sandbox sandbox;
    private final int permit;
    private Interpreter interpreter;
    private CompletableFuture<?> tail = CompletableFuture.completedFuture(null);
    private volatile long lastUsedNanos = System.nanoTime();
    private int starts;
    private String closedBecause;

    SandboxSession(Sandbox sandbox, int permit, Interpreter warm) {
        this.sandbox = sandbox;
        this.permit = permit;
        this.interpreter = warm;
        this.starts = warm == null ? 0 : 1;
    }

    /** Runs one cell; Python cells see the variables of earlier ones, and a last expression's value is printed. */
    public CompletionStage<Execution> run(Language language, String code) {
        int bytes = code.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_CELL_BYTES) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "the cell is " + bytes + " bytes; at most " + MAX_CELL_BYTES + " can be run at once"));
        }
        ObjectNode request = Json.object().put("op", "exec").put("lang", language.name().toLowerCase(java.util.Locale.ROOT))
                .put("code", code).put("timeout", sandbox.settings().wallTimeout().toMillis() / 1000.0);
        return enqueue(true, live -> {
            long oomKillsBefore = sandbox.oomKills(sandbox.settings().slots() + permit);
            long start = System.nanoTime();
            try {
                JsonNode r = live.call(request, sandbox.settings().wallTimeout().toMillis() + Sandbox.CELL_GRACE_MILLIS);
                if (r.has("error")) throw new IllegalStateException("the interpreter refused the cell: " + r.get("error").asText());
                long outDropped = r.path("stdout_dropped").asLong();
                long errDropped = r.path("stderr_dropped").asLong();
                // A process of the cell the group's OOM killer took looks like SIGKILL to the driver, which reads it as CPU.
                Execution.Limit limit = sandbox.oomKills(sandbox.settings().slots() + permit) > oomKillsBefore ? Execution.Limit.MEMORY
                        : Execution.Limit.valueOf(r.path("limit").asText("NONE"));
                return new Execution(r.path("exit").asInt(), CappedOutput.withCutMark(r.path("stdout").asText(), outDropped),
                        CappedOutput.withCutMark(r.path("stderr").asText(), errDropped), outDropped > 0, errDropped > 0,
                        (System.nanoTime() - start) / 1_000_000, limit);
            } catch (Interpreter.Stopped s) {
                interpreterStopped();
                boolean oomKilled = sandbox.oomKills(sandbox.settings().slots() + permit) > oomKillsBefore;
                Execution.Limit limit = s.timedOut ? Execution.Limit.WALL_TIME
                        : oomKilled ? Execution.Limit.MEMORY // the session's processes together passed its group's memory.max
                        : s.exitCode == 128 + Sandbox.SIGKILL || s.exitCode == 128 + Sandbox.SIGXCPU ? Execution.Limit.CPU_TIME
                        : Execution.Limit.NONE;
                String why = s.timedOut ? "the cell did not stop at its " + sandbox.settings().wallTimeout().toSeconds()
                        + " s limit and the interpreter was killed" : s.getMessage();
                return new Execution(s.exitCode, "", why + "\n" + RESTARTED, false, false, (System.nanoTime() - start) / 1_000_000, limit);
            }
        });
    }

    /** Writes {@code data} to {@code path} in the work folder (relative; folders are made). */
    public CompletionStage<Void> put(String path, byte[] data) {
        ObjectNode request = Json.object().put("op", "put").put("path", path).put("data", Base64.getEncoder().encodeToString(data));
        return enqueue(false, live -> {
            fileCall(live, request);
            return null;
        });
    }

    /** The bytes of {@code path} in the work folder. */
    public CompletionStage<byte[]> get(String path) {
        ObjectNode request = Json.object().put("op", "get").put("path", path);
        return enqueue(false, live -> Base64.getDecoder().decode(fileCall(live, request).path("data").asText()));
    }

    private JsonNode fileCall(Interpreter live, ObjectNode request) {
        try {
            JsonNode r = live.call(request, sandbox.settings().wallTimeout().toMillis());
            if (r.has("error")) throw new IllegalArgumentException(r.get("error").asText());
            return r;
        } catch (Interpreter.Stopped s) {
            interpreterStopped();
            throw new IllegalStateException(s.getMessage() + "\n" + RESTARTED);
        }
    }

    /** Interpreters started for this session: 1, plus one per restart after a crash or a kill. */
    public synchronized int starts() {
        return starts;
    }

    public synchronized boolean isOpen() {
        return closedBecause == null;
    }

    long idleNanos() {
        return System.nanoTime() - lastUsedNanos;
    }

    /** Ends the session: its interpreter and every process it started are killed, its work folder is gone. */
    @Override
    public void close() {
        close("it was closed");
    }

    void close(String because) {
        Interpreter live;
        synchronized (this) {
            if (closedBecause != null) return;
            closedBecause = because;
            live = interpreter;
            interpreter = null;
        }
        if (live != null) live.kill();
        sandbox.sessionClosed(this, permit);
    }

    private synchronized void interpreterStopped() {
        if (interpreter != null) interpreter.kill();
        interpreter = null;
    }

    /** Runs {@code work} after every earlier call of this session, on the sandbox's threads; cells also take an execution slot. */
    private <T> CompletionStage<T> enqueue(boolean cell, Function<Interpreter, T> work) {
        CompletableFuture<T> result;
        synchronized (this) {
            if (closedBecause != null) {
                return CompletableFuture.failedFuture(new IllegalStateException("the sandbox session is closed: " + closedBecause));
            }
            CompletableFuture<Integer> slot = tail.handle((v, e) -> null)
                    .thenCompose(v -> cell ? sandbox.executionSlots().acquire() : CompletableFuture.completedFuture(-1));
            result = slot.thenApplyAsync(s -> {
                try {
                    lastUsedNanos = System.nanoTime();
                    return work.apply(live());
                } finally {
                    if (s >= 0) sandbox.executionSlots().release(s);
                    lastUsedNanos = System.nanoTime();
                }
            }, sandbox.blocking());
            tail = result;
        }
        return result.copy(); // a caller completing its stage must not reorder the session's calls
    }

    /** The running interpreter, started now if the last one stopped. */
    private Interpreter live() {
        Interpreter live;
        synchronized (this) {
            if (closedBecause != null) throw new IllegalStateException("the sandbox session is closed: " + closedBecause);
            live = interpreter;
        }
        if (live != null && live.alive()) return live;
        Interpreter fresh = sandbox.startInterpreter(permit);
        synchronized (this) {
            if (closedBecause != null) {
                fresh.kill();
                throw new IllegalStateException("the sandbox session is closed: " + closedBecause);
            }
            interpreter = fresh;
            starts++;
            return fresh;
        }
    }
}
