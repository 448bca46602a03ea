package dev.agentswarm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One running session driver ({@code session_driver.py}): a Python process inside the sandbox,
 * spoken to in JSON lines. Every call has a deadline at which the whole process tree is killed;
 * a reply longer than {@code maxReplyBytes} or not JSON (a cell writing into the reply channel)
 * also kills it, so nothing the cell does can make the JVM wait or buffer without bound.
 */
final class Interpreter {

    /** The interpreter stopped during a call; the session starts a new one on its next call. */
    static final class Stopped extends Exception {
        final boolean timedOut;
        final int exitCode;

        Stopped(String message, boolean timedOut, int exitCode) {
            super(message);
            this.timedOut = timedOut;
            this.exitCode = exitCode;
        }
    }

    private final Process process;
    private final OutputStream requests;
    private final InputStream replies;
    private final CappedOutput log;
    private final Path hostWorkDir;
    private final int maxReplyBytes;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean killedAtDeadline = new AtomicBoolean();
    /** Kills what the tree walk cannot reach (a daemon that left its parent): the session's cgroup, where there is one. */
    private final Runnable reapGroup;

    Interpreter(Process process, CappedOutput log, Path hostWorkDir, int maxReplyBytes, ScheduledExecutorService timer,
                Runnable reapGroup) {
        this.process = process;
        this.requests = process.getOutputStream();
        this.replies = new BufferedInputStream(process.getInputStream());
        this.log = log;
        this.hostWorkDir = hostWorkDir;
        this.maxReplyBytes = maxReplyBytes;
        this.timer = timer;
        this.reapGroup = reapGroup;
    }

    /** Waits for the driver's first line, which says it is ready for cells. */
    void awaitReady(long timeoutMillis) throws Stopped {
        JsonNode ready = exchange(null, timeoutMillis);
        if (!ready.path("ready").asBoolean()) throw stopped("the interpreter did not start: " + ready, false);
    }

    /** Sends one request and waits for its reply, killing the interpreter at the deadline. */
    JsonNode call(ObjectNode request, long timeoutMillis) throws Stopped {
        return exchange(request, timeoutMillis);
    }

    private JsonNode exchange(ObjectNode request, long timeoutMillis) throws Stopped {
        ScheduledFuture<?> deadline = timer.schedule(() -> {
            killedAtDeadline.set(true);
            kill();
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            if (request != null) {
                requests.write((Json.write(request) + "\n").getBytes(StandardCharsets.UTF_8));
                requests.flush();
            }
            String line = readLine();
            if (line == null) throw stopped("the interpreter stopped", killedAtDeadline.get());
            try {
                JsonNode reply = Json.parse(line);
                if (!reply.isObject()) throw new IOException("not an object");
                return reply;
            } catch (IOException e) {
                kill();
                throw stopped("the interpreter's reply channel was written to by the cell (not a reply: "
                        + line.substring(0, Math.min(60, line.length())) + ")", false);
            }
        } catch (IOException e) {
            kill();
            throw stopped("the interpreter stopped (" + e.getMessage() + ")", killedAtDeadline.get());
        } finally {
            deadline.cancel(false);
        }
    }

    /** One line of at most {@code maxReplyBytes}, or null at the end of the stream. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = replies.read()) >= 0) {
            if (b == '\n') return line.toString(StandardCharsets.UTF_8);
            if (line.size() >= maxReplyBytes) throw new IOException("a reply longer than " + maxReplyBytes + " bytes");
            line.write(b);
        }
        return null;
    }

    private Stopped stopped(String what, boolean timedOut) {
        kill();
        int code;
        try {
            process.waitFor(2, TimeUnit.SECONDS);
            code = process.isAlive() ? -1 : process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = -1;
        }
        String tail = log.text().strip();
        return new Stopped(what + (tail.isEmpty() ? "" : ": " + tail), timedOut, code);
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Kills the interpreter and everything it started; removes its host work folder (isolation none). */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        reapGroup.run();
        if (hostWorkDir != null) {
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Sandbox.deleteTree(hostWorkDir);
        }
    }
}
