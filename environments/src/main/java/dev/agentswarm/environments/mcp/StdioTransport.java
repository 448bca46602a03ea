package dev.agentswarm.environments.mcp;

import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The stdio transport of one server process: JSON-RPC messages one a line on its stdin and stdout,
 * its stderr kept (the last lines) to say why it died.
 *
 * <p>Ours rather than the SDK's {@code StdioClientTransport}, for what containment needs and that one
 * does not give: the process itself (to kill it with its children: {@code npx} runs the server as a
 * child of npm, which SIGTERM to npx alone leaves running), the moment it dies (its exit, reported
 * at once with its code and last stderr lines, so calls in flight fail now rather than at their
 * timeout), and a line that is not JSON-RPC reported as such (the SDK's stops reading and logs).
 * Everything above the transport — the session, initialize, tools/list, tools/call, notifications —
 * is the SDK's client.
 *
 * <p>The environment of the process is what the SDK's {@link ServerParameters} gives: the variables
 * deemed safe to inherit (HOME, LOGNAME, PATH, SHELL, TERM, USER) and the configured {@code env}; the
 * node's other variables (API keys) are not passed on.
 */
final class StdioTransport implements McpClientTransport {

    private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
    private static final int STDERR_LINES = 20;
    private static final int STDERR_LINE_CHARS = 300;
    private static final String STOP = "\u0000stop";

    private final McpSettings.Server server;
    private final McpJsonMapper mapper;
    private final Executor blocking;
    private final BiConsumer<String, String> lost;
    private final LinkedBlockingQueue<String> outbox = new LinkedBlockingQueue<>();
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean reported = new AtomicBoolean();
    private final CompletableFuture<Void> readerDone = new CompletableFuture<>();
    private volatile Process process;
    private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;

    /**
     * {@code lost} hears, once, why the process can no longer serve (it exited, closed its output,
     * wrote something that is not JSON-RPC, could not be started), and its last stderr lines ("" when
     * none); not when this side closes it.
     */
    StdioTransport(McpSettings.Server server, McpJsonMapper mapper, Executor blocking, BiConsumer<String, String> lost) {
        this.server = server;
        this.mapper = mapper;
        this.blocking = blocking;
        this.lost = lost;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        this.handler = handler;
        return Mono.<Void>fromRunnable(this::start).subscribeOn(Schedulers.fromExecutor(blocking));
    }

    private void start() {
        if (closing.get()) throw new IllegalStateException("MCP server '" + server.name() + "' was closed before it started");
        List<String> command = server.command();
        // The SDK's parameters decide the environment: a safe inherited subset plus the configured variables.
        ServerParameters params = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()))
                .env(server.env()).build();
        List<String> argv = command;
        if (server.jail() != null) {
            String missing = ServerJail.missing(server);
            if (missing != null) {
                report(missing);
                throw new IllegalStateException("MCP server '" + server.name() + "' " + missing);
            }
            argv = ServerJail.command(server, command, params.getEnv());
        }
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().clear();
        pb.environment().putAll(params.getEnv());
        if (server.cwd() != null) pb.directory(server.cwd().toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            String why = "could not be started (" + String.join(" ", command) + "): " + e.getMessage();
            report(why);
            throw new IllegalStateException("MCP server '" + server.name() + "' " + why, e);
        }
        process = p;
        thread("out", this::readStdout).start();
        thread("err", this::readStderr).start();
        thread("in", this::writeStdin).start();
        // A process that exits while a child it left behind keeps stdout open never gives the reader its end.
        p.onExit().thenRun(() -> readerDone.completeOnTimeout(null, 500, TimeUnit.MILLISECONDS)
                .thenRun(() -> report(exitDescription(p))));
        if (closing.get()) killNow();
    }

    private Thread thread(String stream, Runnable body) {
        Thread t = new Thread(body, "mcp-" + server.name() + "-" + stream);
        t.setDaemon(true);
        return t;
    }

    private void readStdout() {
        Process p = process;
        try (LineReader r = new LineReader(p.getInputStream(), server.maxMessageChars(), false)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) continue;
                McpSchema.JSONRPCMessage message;
                try {
                    message = McpSchema.deserializeJsonRpcMessage(mapper, line);
                } catch (Exception e) {
                    report("wrote to stdout what is not a JSON-RPC message: " + quote(line));
                    killNow();
                    return;
                }
                var h = handler;
                if (h != null) {
                    h.apply(Mono.just(message)).subscribe(ignored -> {}, e -> LOG.debug("MCP server '{}': handling a message failed",
                            server.name(), e));
                }
            }
        } catch (TooLong e) {
            report("wrote a message longer than max-message-size (" + server.maxMessageChars() + " characters)");
            killNow();
            return;
        } catch (IOException e) {
            // The pipe closed under the reader: the process died or was killed; its exit says which.
        } finally {
            readerDone.complete(null);
        }
        // Its output ended: it exited (say with which code), or closed stdout and can no longer answer.
        boolean exited;
        try {
            exited = p.waitFor(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        report(exited ? exitDescription(p) : "closed its stdout");
        if (!exited) killNow();
    }

    private void readStderr() {
        Process p = process;
        try (LineReader r = new LineReader(p.getErrorStream(), STDERR_LINE_CHARS, true)) {
            String line;
            while ((line = r.readLine()) != null) {
                LOG.debug("MCP server '{}' stderr: {}", server.name(), line);
                synchronized (stderrTail) {
                    if (stderrTail.size() == STDERR_LINES) stderrTail.removeFirst();
                    stderrTail.addLast(line);
                }
            }
        } catch (IOException | TooLong e) {
            // ends with the process
        }
    }

    private void writeStdin() {
        OutputStream out = process.getOutputStream();
        try {
            while (true) {
                String line = outbox.take();
                if (line == STOP) break; // identity: the sentinel, not a message that happens to read the same
                out.write(line.getBytes(StandardCharsets.UTF_8));
                out.write('\n');
                out.flush();
            }
        } catch (IOException e) {
            report("stopped reading its stdin (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                out.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (closing.get() || reported.get()) {
            return Mono.error(new IOException("MCP server '" + server.name() + "' is not running"));
        }
        String json;
        try {
            json = mapper.writeValueAsString(message);
        } catch (IOException e) {
            return Mono.error(e);
        }
        outbox.add(json);
        return Mono.empty();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromFuture(() -> close(true));
    }

    @Override
    public void close() {
        close(false);
    }

    /**
     * Stops the process and every process it started. Gracefully as the MCP spec says for stdio (its
     * stdin closed, then SIGTERM, then SIGKILL, a second apart), or at once (SIGKILL); a hard close
     * during a graceful one kills at once. The stage completes when they have exited (or a second
     * after SIGKILL).
     */
    CompletableFuture<Void> close(boolean gracefully) {
        CompletableFuture<Void> done;
        synchronized (this) {
            if (closed != null) {
                if (!gracefully) killNow();
                return closed;
            }
            closing.set(true);
            outbox.clear();
            outbox.add(STOP);
            Process p = process;
            if (p == null) {
                closed = CompletableFuture.completedFuture(null);
                return closed;
            }
            if (!gracefully) {
                closed = killNow();
                return closed;
            }
            List<ProcessHandle> tree = tree(p);
            done = p.onExit().thenApply(x -> (Void) null).completeOnTimeout(null, 1, TimeUnit.SECONDS).thenCompose(x -> {
                if (!p.isAlive()) return CompletableFuture.<Void>completedFuture(null);
                tree.forEach(ProcessHandle::destroy);
                return p.onExit().thenApply(y -> (Void) null).completeOnTimeout(null, 1, TimeUnit.SECONDS);
            }).thenCompose(x -> kill(tree));
            closed = done;
        }
        return done;
    }

    private CompletableFuture<Void> closed;

    /** SIGKILL to the process and all its descendants, as they are now (they are re-parented once it dies). */
    CompletableFuture<Void> killNow() {
        Process p = process;
        return p == null ? CompletableFuture.completedFuture(null) : kill(tree(p));
    }

    /** SIGKILL to each, then their exits (a second at most). */
    private static CompletableFuture<Void> kill(List<ProcessHandle> tree) {
        List<CompletableFuture<ProcessHandle>> exits = new ArrayList<>();
        for (ProcessHandle h : tree) {
            if (!h.isAlive()) continue;
            h.destroyForcibly();
            exits.add(h.onExit());
        }
        return CompletableFuture.allOf(exits.toArray(CompletableFuture[]::new)).completeOnTimeout(null, 1, TimeUnit.SECONDS);
    }

    private static List<ProcessHandle> tree(Process p) {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        return all;
    }

    /** The process, once started: tests kill it to see a crash handled. */
    ProcessHandle process() {
        Process p = process;
        return p == null ? null : p.toHandle();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    private void report(String why) {
        if (closing.get() || !reported.compareAndSet(false, true)) return;
        lost.accept(why, stderrTail());
    }

    /** The last lines the process wrote to stderr, joined with " | ", at most 600 characters. */
    String stderrTail() {
        String s;
        synchronized (stderrTail) {
            s = String.join(" | ", stderrTail);
        }
        return s.length() <= 600 ? s : "…" + s.substring(s.length() - 600);
    }

    static String exitDescription(Process p) {
        int code = p.exitValue();
        if (code > 128 && code < 160) {
            int signal = code - 128;
            String name = Map.of(1, "SIGHUP", 2, "SIGINT", 6, "SIGABRT", 9, "SIGKILL", 11, "SIGSEGV", 13, "SIGPIPE", 15, "SIGTERM")
                    .getOrDefault(signal, "signal " + signal);
            return "exited (killed by " + name + ", exit code " + code + ")";
        }
        return "exited with code " + code;
    }

    private static String quote(String line) {
        String s = line.length() <= 120 ? line : line.substring(0, 120) + "…";
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static final class TooLong extends Exception {
        TooLong() {
            super(null, null, false, false);
        }
    }

    /** Lines of at most a given length from a character stream, read a buffer at a time. */
    static final class LineReader implements AutoCloseable {
        private final java.io.Reader in;
        private final int max;
        private final boolean cut;
        private final char[] buf = new char[8192];
        private int pos;
        private int end;

        /** Lines longer than {@code max} throw {@link TooLong}, or with {@code cut} are cut to {@code max}. */
        LineReader(java.io.InputStream in, int max, boolean cut) {
            this.in = new InputStreamReader(in, StandardCharsets.UTF_8);
            this.max = max;
            this.cut = cut;
        }

        /** The next line without its terminator ({@code \n} or {@code \r\n}); null at the end of the stream. */
        String readLine() throws IOException, TooLong {
            StringBuilder sb = null;
            while (true) {
                if (pos == end) {
                    end = in.read(buf, 0, buf.length);
                    pos = 0;
                    if (end <= 0) {
                        end = 0;
                        return sb == null || sb.isEmpty() ? null : strip(sb.toString());
                    }
                }
                int start = pos;
                while (pos < end && buf[pos] != '\n') pos++;
                int len = pos - start;
                int have = sb == null ? 0 : sb.length();
                if (have + len > max) {
                    if (!cut) throw new TooLong();
                    len = Math.max(0, max - have);
                }
                if (pos < end) { // found the end of the line
                    pos++;
                    if (sb == null) return strip(new String(buf, start, len));
                    return strip(sb.append(buf, start, len).toString());
                }
                if (sb == null) sb = new StringBuilder(Math.max(16, len * 2));
                sb.append(buf, start, len);
            }
        }

        private static String strip(String s) {
            return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
