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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.LoggerFactory;
import scala.concurrent.ExecutionContext;

/**
 * The model named {@value #MODEL}: a chat request runs a whole swarm on the node, its task the last
 * user message. Each request gets a run folder of its own under {@code runsRoot} (trace.jsonl and
 * trace.html, as {@code swarm run} writes them); nothing waits on a thread while the swarm runs: the
 * answer completes a future. Swarms run unjournaled: a request's swarm ends with its server. At most
 * {@code agentswarm.serve.swarm.max-concurrent} run at once (one more is refused with 429 and
 * Retry-After), and run folders older than {@code keep-runs} are removed: at the start, then every
 * {@link #SWEEP_EVERY} on the actor system's scheduler (walking every kept folder is not a request's
 * cost to pay).
 */
public final class SwarmChat {

    public static final String MODEL = "swarm";

    /** How often run folders past their retention are looked for: against days of retention, an hour late is nothing. */
    static final Duration SWEEP_EVERY = Duration.ofHours(1);

    /** A swarm that has begun: where its trace goes, and its result once it ends. */
    public record Run(Path runDir, CompletionStage<SwarmResult> result) {}

    private final SwarmNode node;
    private final SwarmSettings settings;
    private final Path runsRoot;
    private final Executor blocking;
    private final ServeSettings serve;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicInteger running = new AtomicInteger();

    /** @param blocking where trace files are opened and written (file I/O, never on Pekko's dispatcher) */
    public SwarmChat(SwarmNode node, SwarmSettings settings, Path runsRoot, Executor blocking, ServeSettings serve) {
        this(node, settings, runsRoot, blocking, serve, SWEEP_EVERY);
    }

    /** The same, looking for expired run folders every {@code sweepEvery} (tests shorten it). */
    SwarmChat(SwarmNode node, SwarmSettings settings, Path runsRoot, Executor blocking, ServeSettings serve, Duration sweepEvery) {
        this.node = node;
        this.settings = settings;
        this.runsRoot = runsRoot;
        this.blocking = blocking;
        this.serve = serve;
        if (!serve.keepRuns().isZero()) {
            // Stopped with the actor system, as the scheduler's tasks are.
            node.system().scheduler().scheduleWithFixedDelay(Duration.ZERO, sweepEvery, this::removeExpiredRuns,
                    ExecutionContext.fromExecutor(blocking));
        }
    }

    /** Swarms running now. */
    public int running() {
        return running.get();
    }

    /** Runs a swarm on {@code task}; throws a 429 {@link ApiError} when as many run as allowed. */
    public Run run(String task) {
        int now = running.incrementAndGet();
        if (now > serve.maxConcurrentSwarms()) {
            running.decrementAndGet();
            throw ApiError.tooManySwarms(now - 1, serve.swarmRetryAfter());
        }
        try {
            Run run = start(task);
            run.result().whenComplete((a, e) -> running.decrementAndGet());
            return run;
        } catch (RuntimeException | Error e) {
            running.decrementAndGet();
            throw e;
        }
    }

    private Run start(String task) {
        long n = requests.incrementAndGet();
        // Run ids keep concurrent swarms' episode ids apart on the node's worker region.
        String runId = "serve-" + ProcessHandle.current().pid() + "-" + n;
        Path dir = runsRoot.resolve(RunDirs.stamped("serve-swarm") + "-" + n);
        return new Run(dir, CompletableFuture.supplyAsync(() -> {
            try {
                Files.createDirectories(runsRoot);
                RunDirs.createOwnerOnly(dir); // traces hold model output and tool results
            } catch (IOException e) {
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
            }, blocking);
        }));
    }

    private void removeExpiredRuns() {
        try {
            ServedRuns.removeExpired(runsRoot, serve.keepRuns(), Instant.now());
        } catch (IOException | RuntimeException e) {
            // A folder that cannot be removed now is tried again at the next sweep; the server goes on.
            LoggerFactory.getLogger(SwarmChat.class).warn("cannot remove expired run folders under {}: {}", runsRoot, e.toString());
        }
    }
}
