package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.reward.ShapingRewards;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolSpecs;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.EpisodeStates;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.Suite;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * AgentBench DBBench on SQLite: each episode gets a fresh in-memory database holding its task's
 * table (all columns TEXT, as AgentBench loads them) and an {@code execute_sql} tool; it answers
 * with the values asked for (a JSON list such as {@code ["a", "b"]} or one value), or, for
 * INSERT/UPDATE tasks, by changing the table and then answering. Scored as AgentBench scores:
 * SELECT answers against the label with its cleaning and 0.01 tolerance, modifications by the
 * MD5 hash of the table after the episode. Train = the 60 dev tasks, held-out = the 300 standard.
 */
public final class DbBenchSuite implements Suite {

    public static final String NAME = "dbbench";
    static final String EXECUTE_SQL = "execute_sql";
    static final Set<String> COMPONENTS = Set.of("correct", "pass", "format", "tool_call");
    private static final ToolSpec SPEC = ToolSpecs.oneString(EXECUTE_SQL,
            "Runs one SQL statement (SQLite dialect) on the task's database and returns the rows, or the number of rows changed.",
            "query", "The SQL statement, e.g. SELECT COUNT(*) FROM \"Table Name\" WHERE \"Column\" = 'x'");
    private static final String SYSTEM = "You answer questions about a database table, or change it as asked, using the"
            + " execute_sql tool (SQLite; quote table and column names with double quotes). When you have the answer, reply"
            + " with the answer values only: a JSON list such as [\"a\", \"b\"], or a single value. After an INSERT or UPDATE"
            + " task, reply \"done\".";

    private final Path trainFile;
    private final Path heldoutFile;
    private final int maxTurns;
    private final int maxRows;
    private final RewardWeights weights;
    private final EpisodeStates<EpisodeDatabase> databases = new EpisodeStates<>(NAME);
    /** SQLite calls block: they run here, never on the caller's (an actor's) thread. */
    private final ExecutorService sqlThreads;
    private final Tool executeSql = new ExecuteSql();

    public DbBenchSuite(Path trainFile, Path heldoutFile, int maxTurns, int maxRows, RewardWeights weights) {
        if (maxTurns < 2) throw new IllegalArgumentException("dbbench: max-turns must be >= 2, got " + maxTurns);
        if (maxRows < 1) throw new IllegalArgumentException("dbbench: max-rows must be >= 1, got " + maxRows);
        weights.requireKnown(COMPONENTS);
        this.trainFile = trainFile;
        this.heldoutFile = heldoutFile;
        this.maxTurns = maxTurns;
        this.maxRows = maxRows;
        this.weights = weights;
        this.sqlThreads = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "dbbench-sql");
            t.setDaemon(true);
            return t;
        });
    }

    /** From an {@code agentswarm.environments.dbbench} block. */
    public static DbBenchSuite fromConfig(Config c) {
        return new DbBenchSuite(Path.of(c.getString("train-path")), Path.of(c.getString("heldout-path")), c.getInt("max-turns"),
                c.getInt("max-rows"), RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "AgentBench DBBench on SQLite: answer or modify a table with execute_sql";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        return DbBenchTasks.load(split == Split.TRAIN ? trainFile : heldoutFile, NAME, split.label(), limit);
    }

    @Override
    public EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(HermesFormat.NAME).withTools(List.of(EXECUTE_SQL)).withSystemPrompt(SYSTEM).withMaxTurns(maxTurns);
    }

    @Override
    public List<Tool> tools() {
        return List.of(executeSql);
    }

    @Override
    public TaskEnvironment open(Task task, String episodeId) {
        DbBenchTasks.Table table = DbBenchTasks.Table.of(task);
        String kind = task.metadata().getOrDefault(DbBenchTasks.TYPE, "");
        String md5 = task.metadata().get(DbBenchTasks.MD5);
        List<String> label = labelOf(task);
        EpisodeDatabase db;
        try {
            db = new EpisodeDatabase(table.name(), table.columns(), table.rows());
        } catch (SQLException e) {
            throw new IllegalArgumentException("DBBench task " + task.id() + ": its table cannot be created: " + e.getMessage());
        }
        databases.put(episodeId, db);
        return new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory t) {
                EpisodeOutcome o = EpisodeOutcome.of(t);
                boolean correct;
                if (md5 != null) {
                    try {
                        correct = o.answer() != null && md5.equals(db.hash(table.name()));
                    } catch (SQLException e) {
                        correct = false; // the agent dropped or broke the table
                    }
                } else {
                    correct = o.answer() != null && AgentBenchAnswer.matches(AgentBenchAnswer.parse(o.answer()), label);
                }
                Map<String, Double> c = new LinkedHashMap<>();
                c.put("correct", correct ? 1.0 : 0.0);
                c.put("pass", correct ? 1.0 : 0.0);
                c.put("format", o.formatScore());
                c.put("tool_call", ShapingRewards.toolCall(o.toolCalls(), o.toolSuccesses(), false));
                return weights.combine(c);
            }

            @Override
            public void close() {
                databases.remove(episodeId);
                db.close();
            }
        };
    }

    private static List<String> labelOf(Task task) {
        List<String> out = new ArrayList<>();
        try {
            Json.parse(task.metadata().getOrDefault(DbBenchTasks.LABEL, "[]")).forEach(v -> out.add(v.asText()));
        } catch (Exception e) {
            throw new IllegalArgumentException("DBBench task " + task.id() + " has a malformed label");
        }
        return out;
    }

    @Override
    public List<String> reportColumns() {
        return List.of("pass", "format", "tool_call");
    }

    @Override
    public String categoryKey() {
        return DbBenchTasks.TYPE;
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new DbBenchOracle());
    }

    /** {@code execute_sql}: the calling episode's database, on the SQL threads, with the call's time limit. */
    private final class ExecuteSql implements Tool {
        @Override
        public ToolSpec spec() {
            return SPEC;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            EpisodeDatabase db;
            try {
                db = databases.get(context.episodeId());
            } catch (IllegalStateException e) {
                return CompletableFuture.failedFuture(e);
            }
            String query = arguments.path("query").asText("");
            int seconds = (int) Math.max(1, context.timeoutMillis() / 1000);
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return db.execute(query, seconds, maxRows);
                } catch (SQLException e) {
                    throw new IllegalArgumentException("SQL error: " + e.getMessage());
                }
            }, sqlThreads);
        }
    }

    /**
     * Modifications: runs the gold statement through {@code execute_sql}, then says done. Questions:
     * reads the table through {@code execute_sql}, then answers with the label (DBBench's gold SELECTs
     * are MySQL text that SQLite cannot always run, e.g. unquoted names with spaces).
     */
    private static final class DbBenchOracle implements Oracle {
        @Override
        public Step next(Task task, List<Message> conversation, Noise noise) {
            long moves = conversation.stream().filter(m -> m.role() == Role.ASSISTANT).count();
            boolean modification = task.metadata().containsKey(DbBenchTasks.MD5);
            String filler = noise.applies(noise.filler(), task.id(), "filler") ? "Let me look at this step by step. " : "";
            List<Step> plan = new ArrayList<>();
            String table = TableHash.quote(DbBenchTasks.Table.of(task).name());
            if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
                plan.add(Step.call(filler + "First, how big is the table?", sql("w", "SELECT COUNT(*) FROM " + table)));
            }
            if (modification) {
                plan.add(Step.call(filler + "I will apply the change.", sql("m", MySqlText.unescapeLiterals(labelOf(task).get(0)))));
                plan.add(Step.answer(filler + "The table is updated.", "done"));
            } else {
                plan.add(Step.call(filler + "I will read the table.", sql("r", "SELECT * FROM " + table)));
                plan.add(Step.answer(filler + "I found the answer in the rows.", Json.write(labelOf(task))));
            }
            return plan.get((int) Math.min(moves, plan.size() - 1));
        }

        private static ToolCall sql(String id, String query) {
            ObjectNode args = Json.object();
            args.put("query", query);
            return new ToolCall(id, EXECUTE_SQL, args);
        }
    }
}
