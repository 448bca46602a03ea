package dev.agentswarm.environments.multihop;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.environments.JsonRecords;
import dev.agentswarm.environments.Split;
import dev.agentswarm.environments.multihop.MultihopScoring.AnswerRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real multi-hop QA dataset as a suite: MuSiQue-Ans or HotpotQA (distractor setting). Each episode
 * searches its own question's paragraphs, indexed when it opens; train and held-out are two files
 * (the datasets' own splits). Scored with the official metrics: answer EM/F1 (best over MuSiQue's
 * aliases; HotpotQA's yes/no rule), support F1 over the cited paragraphs (MuSiQue) or sentences
 * (HotpotQA, with its joint metrics), and seed 000's table.
 */
public final class QaDatasetSuite extends SearchSuite {

    public static final String MUSIQUE = "musique";
    public static final String HOTPOTQA = "hotpotqa";

    /** Makes the task of one record; a malformed record fails naming its line and field. */
    interface Loader {
        Task task(JsonRecords.Located record, String suite, String split);
    }

    private final String description;
    private final String dataset;
    private final Loader loader;
    private final Path trainPath;
    private final Path heldoutPath;

    QaDatasetSuite(String name, String dataset, String description, AnswerRule rule, Loader loader, Path trainPath,
                   Path heldoutPath, int maxTurns, int topK, MultihopScoring.Settings settings, RewardWeights weights) {
        super(name, maxTurns, topK, rule, settings, weights, null);
        this.dataset = dataset;
        this.description = description;
        this.loader = loader;
        this.trainPath = trainPath;
        this.heldoutPath = heldoutPath;
    }

    public static QaDatasetSuite musique(Config c) {
        return fromConfig(MUSIQUE, "MuSiQue", "MuSiQue-Ans: search each question's 20 paragraphs; answer F1/EM, support F1",
                AnswerRule.SQUAD, MusiqueTasks::task, c);
    }

    public static QaDatasetSuite hotpotqa(Config c) {
        return fromConfig(HOTPOTQA, "HotpotQA", "HotpotQA distractor: search each question's 10 paragraphs; answer, supporting-fact"
                + " and joint F1", AnswerRule.HOTPOT, HotpotTasks::task, c);
    }

    private static QaDatasetSuite fromConfig(String name, String dataset, String description, AnswerRule rule, Loader loader,
                                             Config c) {
        return new QaDatasetSuite(name, dataset, description, rule, loader, Path.of(c.getString("train-path")),
                Path.of(c.getString("heldout-path")), c.getInt("max-turns"), c.getInt("top-k"),
                MultihopScoring.Settings.fromConfig(c.getConfig("scoring")), RewardWeights.fromConfig(c.getConfig("reward")));
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public List<Task> tasks(Split split, int limit) {
        Path file = split == Split.TRAIN ? trainPath : heldoutPath;
        List<Task> tasks = new ArrayList<>();
        for (JsonRecords.Located r : JsonRecords.read(file, limit, dataset + " file", "set agentswarm.environments." + name() + "."
                + split.label() + "-path; the samples are in ../shared/data/" + name())) {
            tasks.add(loader.task(r, name(), split.label()));
        }
        return tasks;
    }

    /** Hop types (MuSiQue's 2hop … 4hop3; HotpotQA's bridge and comparison) are what the datasets report by. */
    @Override
    public String categoryKey() {
        return HopTask.TYPE;
    }
}
