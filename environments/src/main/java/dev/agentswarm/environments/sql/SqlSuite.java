package dev.agentswarm.environments.sql;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Split;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Generated SQL tasks in DBBench's mould ({@link SqlTasks}): each episode gets a fresh in-memory
 * SQLite database holding its task's table, the tools {@code execute_sql} and
 * {@code commit_final_answer} ({@link SqlTools}), and is scored as AgentBench scores DBBench
 * ({@link SqlEpisode}). Tasks carry their table's rows (metadata {@code tables}), so any node can
 * build the database; the generator runs only where tasks are drawn. Train and held-out tasks come
 * from one seeded stream, split by a hash of each task ({@link Split#byHash}): disjoint whatever
 * the sizes; {@code train-size} and {@code heldout-size} cap each split.
 */
public final class SqlSuite extends SqlEpisodeSuite {

    public static final String NAME = "sql";

    /** The AgentBench function-calling system prompt, for SQLite, and with the closing message this loop needs. */
    static final String SYSTEM_PROMPT = """
            I will ask you a question, then you should help me operate a SQLite database with SQL to answer the question.
            You have to explain the problem and your solution to me and write down your thoughts.
            After thinking and explaining thoroughly, every round you can choose to operate or to answer with the two tools provided.
            If you should execute a SQL query, use the `execute_sql` function. Your SQL should be in one line, and each call runs one statement.
            If you are done operating, and you want to commit your final answer, then use the `commit_final_answer` function, with \
            the answer values as a list of strings, one value per string (e.g. ["42"] or ["Ada Park", "Ben Ortiz"]).
            DO NOT use this tool unless you are sure about your answer. Your answer must be exactly the same as the correct answer.
            If the question is about modifying the database, then after done operation, your answer field can be anything.
            After committing, reply with a short final message without a tool call.""";

    private static final Set<String> KEYS = Set.of("seed", "train-size", "heldout-size", "max-turns", "reward");

    private final long seed;
    private final int trainSize;
    private final int heldoutSize;

    public SqlSuite(long seed, int trainSize, int heldoutSize, int maxTurns, RewardWeights weights) {
        super(NAME, maxTurns, weights);
        if (trainSize < 1) throw new IllegalArgumentException("sql: train-size must be >= 1, got " + trainSize);
        if (heldoutSize < 1) throw new IllegalArgumentException("sql: heldout-size must be >= 1, got " + heldoutSize);
        this.seed = seed;
        this.trainSize = trainSize;
        this.heldoutSize = heldoutSize;
    }

    /** From an {@code agentswarm.environments.sql} block; an unknown, missing or mistyped key is named. */
    public static SqlSuite fromConfig(Config c) {
        requireKnownKeys(NAME, c, KEYS);
        try {
            return new SqlSuite(c.getLong("seed"), c.getInt("train-size"), c.getInt("heldout-size"), c.getInt("max-turns"),
                    RewardWeights.fromConfig(c.getConfig("reward")));
        } catch (ConfigException e) {
            throw new IllegalArgumentException(NAME + ": bad configuration: " + e.getMessage(), e);
        }
    }

    /** Refuses keys a block does not know (a typo would otherwise silently leave the default in force). */
    static void requireKnownKeys(String suite, Config c, Set<String> known) {
        Set<String> unknown = new TreeSet<>(c.root().keySet());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(suite + ": unknown key(s) " + unknown + "; known: " + new TreeSet<>(known));
        }
    }

    @Override
    public String description() {
        return "generated SQL questions and changes over small SQLite tables, scored as AgentBench DBBench";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        int n = Math.min(limit, split == Split.TRAIN ? trainSize : heldoutSize);
        return SqlTasks.generate(NAME, split, n, seed);
    }

    @Override
    public Optional<Oracle> oracle() {
        return Optional.of(new SqlOracle());
    }
}
