package dev.agentswarm.workers;

import com.typesafe.config.Config;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.sandbox.CodeTools;
import dev.agentswarm.sandbox.Sandbox;
import dev.agentswarm.sandbox.SandboxSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * A node's code tools — {@code python}, {@code code_interpreter} and {@code bash}, one sandbox
 * session per episode — over the JVM's shared sandbox for {@code agentswarm.sandbox}.
 *
 * <p>A plain class, not an actor: the sandbox is already asynchronous and bounded (callers wait for
 * a slot or a session without a thread each), its blocking waits run on its own threads, and its
 * interpreters start from one long-lived thread, because bubblewrap's --die-with-parent follows
 * the thread that started it; a dispatcher's pooled threads may retire and would take live
 * interpreters with them. The sandbox is created on the first code call, so a node on a machine
 * without bubblewrap starts, and only code calls fail there, with how to fix it.
 */
public final class SandboxPool {

    private final SandboxSettings settings;
    private final CodeTools tools;

    public SandboxPool(SandboxSettings settings) {
        this.settings = settings;
        this.tools = new CodeTools(this::sandbox);
    }

    /** The pool of a node with this configuration (its {@code agentswarm.sandbox} block). */
    public static SandboxPool fromConfig(Config config) {
        return new SandboxPool(SandboxSettings.fromConfig(config.getConfig("agentswarm.sandbox")));
    }

    /** The sandbox, created (and its isolation checked) on first use; shared by every pool with these settings. */
    public Sandbox sandbox() {
        return Sandbox.shared(settings);
    }

    /** python, code_interpreter and bash, sharing one session per episode. */
    public List<Tool> tools() {
        return tools.all();
    }

    public static final String SLOTS_IN_USE = "agentswarm.sandbox.slots.in.use";
    public static final String SLOTS = "agentswarm.sandbox.slots";
    public static final String SESSIONS_OPEN = "agentswarm.sandbox.sessions.open";

    /**
     * Registers the sandbox's gauges on a node's registry: execution slots in use and in all, and
     * sessions open. They read the JVM's shared sandbox at scrape time and show 0 until a code call
     * starts it; a scrape never starts it.
     */
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(SLOTS_IN_USE, this, p -> Sandbox.sharedIfStarted(p.settings).map(Sandbox::slotsInUse).orElse(0))
                .strongReference(true)
                .description("Sandbox execution slots running a program or a cell now (the JVM's sandbox)").register(registry);
        Gauge.builder(SLOTS, settings, SandboxSettings::slots)
                .strongReference(true)
                .description("Sandbox execution slots in all (agentswarm.sandbox.slots)").register(registry);
        Gauge.builder(SESSIONS_OPEN, this, p -> Sandbox.sharedIfStarted(p.settings).map(Sandbox::openSessions).orElse(0))
                .strongReference(true)
                .description("Stateful sandbox sessions (python, code_interpreter) open now").register(registry);
    }

    /** Episodes holding a session now. */
    public int episodesWithSession() {
        return tools.sessions();
    }
}
