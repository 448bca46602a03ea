package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolSpecs;
import dev.agentswarm.environments.EpisodeStates;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The two tools of AgentBench's function-calling DBBench, with its names, descriptions and
 * schemas: {@code execute_sql(query)} runs one statement on the calling episode's database (found
 * through {@link EpisodeStates} by the call's episode id) and {@code commit_final_answer(answers)}
 * records the episode's answer. In AgentBench a commit ends the episode; here the episode loop only
 * ends on a final message, so after a commit {@code execute_sql} refuses (the table the answer is
 * scored on stays as it was at the commit) and the reply asks for a short closing message.
 *
 * <p>SQLite calls block, so they run on a small shared pool of daemon threads, never on the
 * caller's (an actor's) thread. The statement's time limit is the call's ({@link ToolContext})
 * less a small margin, so the statement is stopped, with its own message, just before the
 * executor would give up on it; a call the executor cancels stops its statement at once.
 */
public final class SqlTools {

    public static final String EXECUTE_SQL = "execute_sql";
    public static final String COMMIT_FINAL_ANSWER = "commit_final_answer";

    /** AgentBench's {@code configs/tasks/dbbench.yaml} tool definitions. */
    public static final ToolSpec EXECUTE_SQL_SPEC = ToolSpecs.oneString(EXECUTE_SQL,
            "Executes a given SQL statement on the database and returns the result.",
            "query", "The SQL query to be executed.");
    public static final ToolSpec COMMIT_SPEC = commitSpec();

    /** When a call carries no limit. */
    static final long DEFAULT_TIMEOUT_MILLIS = 30_000;

    private static final ExecutorService THREADS = pool();

    private SqlTools() {}

    /** The two tools, serving the episodes in {@code states}. */
    public static List<Tool> tools(EpisodeStates<SqlEpisode> states) {
        return List.of(new ExecuteSql(states), new CommitFinalAnswer(states));
    }

    /** The statement limit for a call limit: a margin of a fifth, at most a second, so the statement stops first. */
    static long statementLimit(long callTimeoutMillis) {
        long t = callTimeoutMillis > 0 ? callTimeoutMillis : DEFAULT_TIMEOUT_MILLIS;
        return Math.max(1, t - Math.min(1000, t / 5));
    }

    private static ToolSpec commitSpec() {
        ObjectNode s = Json.object().put("type", "object");
        ObjectNode answers = s.putObject("properties").putObject("answers");
        answers.put("type", "array");
        answers.putObject("items").put("type", "string");
        answers.put("description", "The list of final answers to commit.");
        s.putArray("required").add("answers");
        s.put("additionalProperties", false);
        return new ToolSpec(COMMIT_FINAL_ANSWER, "Commits the final answer after all operations are completed.", s);
    }

    private static ExecutorService pool() {
        int n = Math.max(2, Runtime.getRuntime().availableProcessors());
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(n, n, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "agentswarm-sql-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** A tool bound to its suite's episodes: finds the calling episode's state; a refusal fails the stage. */
    private abstract static class EpisodeTool implements Tool {
        private final EpisodeStates<SqlEpisode> states;
        private final ToolSpec spec;

        EpisodeTool(EpisodeStates<SqlEpisode> states, ToolSpec spec) {
            this.states = states;
            this.spec = spec;
        }

        @Override
        public ToolSpec spec() {
            return spec;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            try {
                return call(states.get(context.episodeId()), arguments == null ? Json.object() : arguments, context);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        abstract CompletionStage<String> call(SqlEpisode episode, JsonNode arguments, ToolContext context);
    }

    private static final class ExecuteSql extends EpisodeTool {
        ExecuteSql(EpisodeStates<SqlEpisode> states) {
            super(states, EXECUTE_SQL_SPEC);
        }

        /** A query that only reads may run again after a crash; one that writes (INSERT, UPDATE, CREATE…) may not. */
        @Override
        public boolean idempotent(JsonNode arguments) {
            JsonNode query = arguments.get("query");
            return query == null || !query.isTextual() || StatementGuard.readOnly(query.textValue());
        }

        @Override
        CompletionStage<String> call(SqlEpisode episode, JsonNode arguments, ToolContext context) {
            String query = ToolSpecs.string(arguments, "query");
            if (episode.committed() != null) {
                throw new IllegalStateException("an answer was already committed, so the database can no longer be used;"
                        + " end the episode with a short final message");
            }
            long limit = statementLimit(context.timeoutMillis());
            AtomicBoolean cancelled = new AtomicBoolean();
            CompletableFuture<String> result = CompletableFuture.supplyAsync(
                    () -> episode.database().execute(query, limit, cancelled::get), THREADS);
            result.whenComplete((v, e) -> {
                if (result.isCancelled()) cancelled.set(true);
            });
            return result;
        }
    }

    private static final class CommitFinalAnswer extends EpisodeTool {
        CommitFinalAnswer(EpisodeStates<SqlEpisode> states) {
            super(states, COMMIT_SPEC);
        }

        /** An answer is committed once: the same commit again changes nothing (it is refused, the first one stands). */
        @Override
        public boolean idempotent(JsonNode arguments) {
            return true;
        }

        @Override
        CompletionStage<String> call(SqlEpisode episode, JsonNode arguments, ToolContext context) {
            JsonNode a = arguments.get("answers");
            if (a == null || !a.isArray()) throw new IllegalArgumentException("argument 'answers' (an array of strings) is required");
            List<String> answers = new ArrayList<>();
            for (JsonNode v : a) {
                if (!v.isTextual()) throw new IllegalArgumentException("every answer must be a string, got " + v);
                answers.add(v.textValue());
            }
            if (!episode.commit(answers)) {
                throw new IllegalStateException("an answer was already committed (" + Json.write(episode.committed())
                        + "); it cannot be changed. End the episode with a short final message");
            }
            return CompletableFuture.completedFuture("Committed " + Json.write(answers) + ". The task is finished:"
                    + " reply with a short final message, without a tool call.");
        }
    }
}
