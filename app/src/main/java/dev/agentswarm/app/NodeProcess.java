package dev.agentswarm.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A {@code swarm node} in a JVM of its own, started from this JVM's own class path: what
 * {@code swarm bench cluster} and the tests use to run real separate processes, kill them with
 * SIGKILL or stop them with SIGTERM. Closing it kills the process if it still runs, so nothing
 * started is left behind.
 */
public final class NodeProcess implements AutoCloseable {

    private static final String UP = "node up: ";

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> address = new CompletableFuture<>();

    private NodeProcess(Process process, Consumer<String> echo) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    output.add(line);
                    if (echo != null) echo.accept(line);
                    if (line.startsWith(UP)) address.complete(line.substring(UP.length()).split(" ", 2)[0]);
                }
            } catch (IOException e) {
                // the process is gone
            }
            address.completeExceptionally(new IllegalStateException("the node exited before it was up:\n" + String.join("\n", output)));
        }, "node-" + process.pid() + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code swarm node ARGS} with {@code jvmOptions} (heap and the like); its output (stdout
     * and stderr together) goes to {@code echo} line by line when given.
     */
    public static NodeProcess start(List<String> jvmOptions, List<String> args, Consumer<String> echo) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Dai.djl.offline=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.add("node");
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        return new NodeProcess(pb.start(), echo);
    }

    /** Waits until the node says it is up, and returns its address ({@code pekko://swarm@HOST:PORT}). */
    public String awaitUp(Duration limit) throws TimeoutException, InterruptedException {
        try {
            return address.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new TimeoutException("node " + process.pid() + " not up within " + limit.toSeconds() + " s; its output:\n"
                    + String.join("\n", output));
        }
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: the node dies at once, as on a crash; the others notice through the failure detector. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: the node leaves the cluster cleanly; returns its exit code, or -1 if it did not exit within {@code limit}. */
    public int stop(Duration limit) throws InterruptedException {
        process.destroy();
        return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** What the node printed so far. */
    public List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) kill();
    }
}
