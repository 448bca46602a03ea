package dev.agentswarm.environments.multihop;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.multihop.MultihopScoring.AnswerRule;
import java.util.List;

/**
 * Multi-hop questions over a generated world ({@link World}), composed like MuSiQue's
 * ({@link MultihopTasks}), with BM25 {@code search} over the world's pages. Scored as MuSiQue is
 * (answer F1/EM, support F1 over the cited pages) with seed 000's F3, smart-boost verification and
 * efficiency; see {@link MultihopScoring}.
 */
public final class MultihopSuite extends SearchSuite {

    public static final String NAME = "multihop";

    private final long seed;
    private final int minHops;
    private final int maxHops;
    private final World world;

    MultihopSuite(long seed, World.Sizes sizes, int minHops, int maxHops, int maxTurns, int topK,
                  MultihopScoring.Settings settings, RewardWeights weights) {
        this(seed, World.generate(seed, sizes), minHops, maxHops, maxTurns, topK, settings, weights);
    }

    private MultihopSuite(long seed, World world, int minHops, int maxHops, int maxTurns, int topK,
                          MultihopScoring.Settings settings, RewardWeights weights) {
        super(NAME, maxTurns, topK, AnswerRule.SQUAD, settings, weights, new PassageIndex(world.pages(), false));
        if (minHops < 1 || maxHops < minHops || maxHops > 6) {
            throw new IllegalArgumentException("multihop: need 1 <= min-hops <= max-hops <= 6, got " + minHops + ".." + maxHops);
        }
        if (maxTurns < maxHops + 1) {
            throw new IllegalArgumentException("multihop: max-turns " + maxTurns + " leaves no room for " + maxHops + " searches and an answer");
        }
        this.seed = seed;
        this.minHops = minHops;
        this.maxHops = maxHops;
        this.world = world;
    }

    /** From an {@code agentswarm.environments.multihop} block. */
    public static MultihopSuite fromConfig(Config c) {
        return new MultihopSuite(c.getLong("seed"), World.Sizes.fromConfig(c.getConfig("world")), c.getInt("min-hops"),
                c.getInt("max-hops"), c.getInt("max-turns"), c.getInt("top-k"),
                MultihopScoring.Settings.fromConfig(c.getConfig("scoring")), RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String description() {
        return "2-4 hop questions over a generated world of " + world.entities().size() + " pages; BM25 search; F1/F3 + efficiency";
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        return MultihopTasks.generate(NAME, split, limit, seed, world, minHops, maxHops);
    }

    /** The world's pages, as indexed (for tests). */
    List<Passage> pages() {
        return corpus(null);
    }
}
