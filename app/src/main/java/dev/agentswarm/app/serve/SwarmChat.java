package dev.agentswarm.app.serve;

import dev.agentswarm.app.RunDirs;
import dev.agentswarm.app.SwarmNode;
import dev.agentswarm.app.SwarmRun;
import dev.agentswarm.app.TraceHtml;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.orchestrator.swarm.SwarmResult;
import dev.agentswarm.orchestrator.swarm.SwarmSettings;
import dev.agentswarm.orchestrator.swarm.SwarmTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The model named {@value #MODEL}: a chat request runs a whole swarm on the node, its task the last
 * user message. Each request gets a run folder of its own under {@code runsRoot} (trace.jsonl and
 * trace.html, as {@code swarm run} writes them); nothing waits on a thread while the swarm runs: the
 * answer completes a future. Swarms run unjournaled: a request's swarm ends with its server.
 */
public final class SwarmChat {

    public static final String MODEL = "swarm";

    /** The answer and where its trace is. */
    public record Answer(SwarmResult result, Path runDir) {}

    private final SwarmNode node;
    private final SwarmSettings settings;
    private final Path runsRoot;
    private final Executor blocking;
    private final AtomicLong requests = new AtomicLong();

    /** @param blocking where trace files are opened and written (file I/O, never on Pekko's dispatcher) */
    public SwarmChat(SwarmNode node, SwarmSettings settings, Path runsRoot, Executor blocking) {
        this.node = node;
        this.settings = settings;
        this.runsRoot = runsRoot;
        this.blocking = blocking;
    }

    public CompletionStage<Answer> run(String task) {
        long n = requests.incrementAndGet();
        // Run ids keep concurrent swarms' episode ids apart on the node's worker region.
        String runId = "serve-" + ProcessHandle.current().pid() + "-" + n;
        Path dir = runsRoot.resolve(RunDirs.stamped("serve-swarm") + "-" + n);
        return CompletableFuture.supplyAsync(() -> {
            try {
                Files.createDirectories(dir);
            } catch (java.io.IOException e) {
                throw ApiError.internal("cannot create the run folder " + dir + ": " + e.getMessage());
            }
            return SwarmTrace.toFile(dir.resolve("trace.jsonl"), event -> {});
        }, blocking).thenCompose(trace -> {
            CompletableFuture<SwarmResult> done = new CompletableFuture<>();
            SwarmRun.start(node, settings, runId, Task.of("task-1", task), trace, done);
            long limit = settings.budget().deadline().plus(settings.lostAfter()).plusSeconds(30).toMillis();
            return done.orTimeout(limit, TimeUnit.MILLISECONDS).whenCompleteAsync((r, e) -> {
                trace.close();
                TraceHtml.write(dir.resolve("trace.jsonl"), dir.resolve("trace.html"));
            }, blocking).thenApply(r -> new Answer(r, dir));
        });
    }
}
