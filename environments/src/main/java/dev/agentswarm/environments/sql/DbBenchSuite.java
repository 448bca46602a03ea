package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * AgentBench DBBench on SQLite, with the sql suite's machinery: each episode gets a fresh database
 * holding its task's table (all columns TEXT, as AgentBench loads them), the {@code execute_sql}
 * and {@code commit_final_answer} tools, and AgentBench's scoring ({@link SqlEpisode}: answers by
 * its result processor, modifications by the MD5 table hash). Train = the 60 dev tasks,
 * held-out = the 300 "standard" ones.
 */
public final class DbBenchSuite extends SqlEpisodeSuite {

    public static final String NAME = "dbbench";

    private final Path trainFile;
    private final Path heldoutFile;

    public DbBenchSuite(Path trainFile, Path heldoutFile, int maxTurns, RewardWeights weights) {
        super(NAME, maxTurns, weights);
        this.trainFile = trainFile;
        this.heldoutFile = heldoutFile;
    }

    /** From an {@code agentswarm.environments.dbbench} block. */
    public static DbBenchSuite fromConfig(Config c) {
        return new DbBenchSuite(Path.of(c.getString("train-path")), Path.of(c.getString("heldout-path")), c.getInt("max-turns"),
                RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String description() {
        return "AgentBench DBBench on SQLite: answer or modify a table with execute_sql, commit with commit_final_answer";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        return DbBenchTasks.load(split == Split.TRAIN ? trainFile : heldoutFile, NAME, split.label(), limit);
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new DbBenchOracle());
    }

    /**
     * Modifications: runs the gold statement (MySQL escapes undone) through {@code execute_sql}, then
     * commits. Questions: reads the table through {@code execute_sql}, then commits the label
     * (DBBench's gold SELECTs are MySQL text that SQLite cannot always run, e.g. unquoted names
     * with spaces, so the values cannot always be read back from a query).
     */
    private static final class DbBenchOracle implements Oracle {
        @Override
        public Step next(Task task, List<Message> conversation, Noise noise) {
            int moves = Oracle.moves(conversation);
            boolean modification = AnswerMatcher.isModification(task.metadata().getOrDefault(SqlTasks.TYPE, ""));
            String filler = noise.applies(noise.filler(), task.id(), "filler") ? "Let me look at this step by step. " : "";
            List<String> label = label(task);
            String table = TableHash.quote(SqlTable.fromJson(task.metadata().get(SqlTable.METADATA_KEY), task.id()).get(0).name());
            List<Step> plan = new ArrayList<>();
            if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
                plan.add(Step.call(filler + "First, how big is the table?", call("w", SqlTools.EXECUTE_SQL, "query",
                        "SELECT COUNT(*) FROM " + table)));
            }
            if (modification) {
                plan.add(Step.call(filler + "I will apply the change.", call("m", SqlTools.EXECUTE_SQL, "query",
                        MySqlText.unescapeLiterals(label.get(0)))));
                plan.add(Step.call(filler + "Done; committing.", commit(List.of())));
            } else {
                plan.add(Step.call(filler + "I will read the table.", call("r", SqlTools.EXECUTE_SQL, "query", "SELECT * FROM " + table)));
                plan.add(Step.call(filler + "I found the answer in the rows.", commit(label)));
            }
            plan.add(Step.answer("", "Committed."));
            return plan.get((int) Math.min(moves, plan.size() - 1));
        }

        private static List<String> label(Task task) {
            List<String> out = new ArrayList<>();
            try {
                Json.parse(task.metadata().getOrDefault(DbBenchTasks.LABEL, "[]")).forEach(v -> out.add(v.asText()));
            } catch (Exception e) {
                throw new IllegalArgumentException("DBBench task " + task.id() + " has a malformed label");
            }
            return out;
        }

        private static ToolCall call(String id, String tool, String key, String value) {
            ObjectNode args = Json.object();
            args.put(key, value);
            return new ToolCall(id, tool, args);
        }

        private static ToolCall commit(List<String> answers) {
            ObjectNode args = Json.object();
            var list = args.putArray("answers");
            answers.forEach(list::add);
            return new ToolCall("c", SqlTools.COMMIT_FINAL_ANSWER, args);
        }
    }
}
