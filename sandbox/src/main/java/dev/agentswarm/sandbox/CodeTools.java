package dev.agentswarm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolSpecs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The code tools an episode calls: {@code python} (and the same under seed 002's name,
 * {@code code_interpreter}) runs cells in the episode's stateful session; {@code bash} runs a command
 * in that session's work folder. An episode's session opens on its first call and closes when the
 * episode ends ({@link Tool#release}); one that failed to open or was closed as idle is opened
 * again. What a call returns is what the model reads: the output,
 * then the error stream, the exit status and the limit that stopped it, when there are any.
 */
public final class CodeTools {

    public static final String PYTHON = "python";
    public static final String CODE_INTERPRETER = "code_interpreter";
    public static final String BASH = "bash";

    private static final String PYTHON_DESCRIPTION = "Runs Python 3 code in this episode's sandbox, like a notebook cell: "
            + "variables, functions and files persist between calls; the value of a last expression is shown. "
            + "No network; the work folder is /work. Returns the output, errors and exit status.";

    public static final ToolSpec PYTHON_SPEC = ToolSpecs.oneString(PYTHON, PYTHON_DESCRIPTION, "code", "The Python code to run.");
    public static final ToolSpec CODE_INTERPRETER_SPEC =
            ToolSpecs.oneString(CODE_INTERPRETER, PYTHON_DESCRIPTION, "code", "The Python code to run.");
    public static final ToolSpec BASH_SPEC = ToolSpecs.oneString(BASH, "Runs a bash command in this episode's sandbox, in the "
            + "work folder /work that the python tool also sees. No network. Returns the output, errors and exit status.",
            "command", "The bash command to run.");

    private final Supplier<Sandbox> sandbox;
    private final Map<String, CompletionStage<SandboxSession>> sessions = new ConcurrentHashMap<>();

    public CodeTools(Sandbox sandbox) {
        this(() -> sandbox);
    }

    /**
     * Tools over a sandbox made on first use: a node without bubblewrap still starts, and a code call
     * there fails with the sandbox's message on how to fix it, which the model reads as the result.
     */
    public CodeTools(Supplier<Sandbox> sandbox) {
        this.sandbox = sandbox;
    }

    public Tool python() {
        return new CodeTool(PYTHON_SPEC, Language.PYTHON, "code");
    }

    public Tool codeInterpreter() {
        return new CodeTool(CODE_INTERPRETER_SPEC, Language.PYTHON, "code");
    }

    public Tool bash() {
        return new CodeTool(BASH_SPEC, Language.BASH, "command");
    }

    /** All three, sharing one session per episode. */
    public List<Tool> all() {
        return List.of(python(), codeInterpreter(), bash());
    }

    /** The session of {@code episodeId}, opened on first use (waiting for a free one when all are taken). */
    public CompletionStage<SandboxSession> session(String episodeId) {
        // A session that failed to open, or was closed as idle, is opened again rather than failing every later call.
        return sessions.compute(episodeId, (id, known) -> known == null || unusable(known) ? sandbox.get().openSession() : known);
    }

    private static boolean unusable(CompletionStage<SandboxSession> stage) {
        CompletableFuture<SandboxSession> f = stage.toCompletableFuture();
        return f.isCompletedExceptionally() || (f.isDone() && !f.join().isOpen());
    }

    /** Closes the session of {@code episodeId}, if it has one, once it is open. */
    public void release(String episodeId) {
        CompletionStage<SandboxSession> s = sessions.remove(episodeId);
        if (s != null) s.thenAccept(SandboxSession::close);
    }

    /** Episodes with a session now. */
    public int sessions() {
        return sessions.size();
    }

    /** The text a model reads for one execution. */
    public static String render(Execution e) {
        StringBuilder b = new StringBuilder(e.stdout());
        if (!e.stderr().isEmpty()) {
            if (b.length() > 0 && b.charAt(b.length() - 1) != '\n') b.append('\n');
            b.append("[stderr]\n").append(e.stderr());
        }
        if (b.length() > 0 && b.charAt(b.length() - 1) != '\n') b.append('\n');
        if (e.limit() != Execution.Limit.NONE) b.append("[stopped: ").append(describe(e.limit())).append("]\n");
        if (e.exitCode() != 0) b.append("[exit status ").append(e.exitCode()).append("]\n");
        if (b.length() == 0) b.append("[no output]\n");
        return b.substring(0, b.length() - 1); // the observation's frame adds its own line break

    }

    /** How a limit reads in a sentence. */
    public static String describe(Execution.Limit limit) {
        return switch (limit) {
            case WALL_TIME -> "wall-clock time limit";
            case CPU_TIME -> "CPU time limit";
            case MEMORY -> "memory limit";
            case FILE_SIZE -> "file size limit";
            case OUTPUT -> "output cut at the size limit";
            case NONE -> "none";
        };
    }

    private final class CodeTool implements Tool {
        private final ToolSpec spec;
        private final Language language;
        private final String field;

        CodeTool(ToolSpec spec, Language language, String field) {
            this.spec = spec;
            this.language = language;
            this.field = field;
        }

        @Override
        public ToolSpec spec() {
            return spec;
        }

        /**
         * Not idempotent: a cell or command changes its session (a variable incremented, a line appended to a
         * file), so one run twice is not one run once. The sandbox has no network, so the harm stays inside it.
         */
        @Override
        public boolean idempotent(JsonNode arguments) {
            return false;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            try {
                String code = ToolSpecs.string(arguments, field);
                return session(context.episodeId()).thenCompose(s -> s.run(language, code)).thenApply(CodeTools::render);
            } catch (RuntimeException e) { // bad arguments, or no sandbox on this machine
                return CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public void release(String episodeId) {
            CodeTools.this.release(episodeId);
        }
    }
}
