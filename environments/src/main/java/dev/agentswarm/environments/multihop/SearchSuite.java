package dev.agentswarm.environments.multihop;

import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.format.HermesFormat;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.reward.AnswerMetrics;
import dev.agentswarm.core.reward.RewardWeights;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.environments.EpisodeOutcome;
import dev.agentswarm.environments.EpisodeStates;
import dev.agentswarm.environments.Oracle;
import dev.agentswarm.environments.Suite;
import dev.agentswarm.environments.multihop.MultihopScoring.AnswerRule;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the multi-hop suites share: the {@code search} tool over a corpus (the generated world's
 * pages, shared by every episode, or a dataset question's own paragraphs, indexed when its episode
 * opens and shared by the episodes of that question open at once (a GRPO group),
 * opens), the prompt asking for a short answer with bracketed citations, {@link MultihopScoring},
 * the seed-000 table and the {@link SearchOracle}.
 */
abstract class SearchSuite implements Suite {

    static final String PROMPT = "You answer questions by searching a collection of documents. The question needs several"
            + " facts, each found on its own page: search for one fact at a time, naming the entity you already know, and use"
            + " what each result says to ask the next question. Do not answer from memory. When you know the answer, give only"
            + " the answer itself (a name, a date, a number or a short phrase, not a sentence), followed by the keys of the"
            + " passages that support it in brackets, for example: Stanley [8][1]";
    static final String SENTENCE_PROMPT = " Cite the sentences that support the answer by their keys, for example [3.0][7.2].";

    private final String name;
    private final int maxTurns;
    private final int topK;
    private final AnswerRule rule;
    private final MultihopScoring.Settings settings;
    private final RewardWeights weights;
    /** The corpus every episode shares, or null when each episode searches its own task's passages. */
    private final PassageIndex shared;
    private final EpisodeStates<PassageIndex> episodes;
    /** A question's index and how many open episodes use it, by task id. */
    private final Map<String, Used> byTask = new HashMap<>();
    private final List<Tool> tools;

    SearchSuite(String name, int maxTurns, int topK, AnswerRule rule, MultihopScoring.Settings settings, RewardWeights weights,
                PassageIndex shared) {
        if (maxTurns < 2) throw new IllegalArgumentException(name + ": max-turns must be >= 2 (a search and an answer), got " + maxTurns);
        weights.requireKnown(name, MultihopScoring.components(rule));
        this.name = name;
        this.maxTurns = maxTurns;
        this.topK = topK;
        this.rule = rule;
        this.settings = settings;
        this.weights = weights;
        this.shared = shared;
        this.episodes = new EpisodeStates<>(name);
        this.tools = List.of(new SearchTool(shared != null ? id -> shared : episodes::get, topK));
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final EpisodeSpec spec(EpisodeSpec defaults) {
        return defaults.withFormat(HermesFormat.NAME)
                .withTools(List.of(SearchTool.NAME))
                .withSystemPrompt(PROMPT + (rule == AnswerRule.HOTPOT ? SENTENCE_PROMPT : ""))
                .withMaxTurns(maxTurns);
    }

    @Override
    public final List<Tool> tools() {
        return tools;
    }

    @Override
    public final TaskEnvironment open(Task task, String episodeId) {
        if (task.answer() == null || task.answer().isBlank()) {
            throw new IllegalArgumentException(name + " task " + task.id() + " has no answer to score against");
        }
        MultihopScoring.Gold gold = new MultihopScoring.Gold(
                AnswerMetrics.golds(task.answer(), HopTask.strings(task, HopTask.ALIASES)),
                new HashSet<>(HopTask.strings(task, HopTask.SUPPORT)), HopTask.hops(task));
        PassageIndex index = shared != null ? shared : acquire(task);
        if (shared == null) {
            try {
                episodes.put(episodeId, index);
            } catch (IllegalStateException e) {
                release(task.id());
                throw e;
            }
        }
        return new TaskEnvironment() {
            @Override
            public RewardBreakdown score(Trajectory t) {
                // HotpotQA scores (title, sentence) facts; the other suites the cited keys themselves.
                return weights.combine(MultihopScoring.score(EpisodeOutcome.of(t), gold, settings, rule,
                        cited -> rule == AnswerRule.HOTPOT ? HotpotTasks.facts(cited, index.passages()) : cited));
            }

            @Override
            public void close() {
                if (shared == null && episodes.remove(episodeId) != null) release(task.id());
            }
        };
    }

    private record Used(PassageIndex index, int episodes) {}

    /** The question's index, built (its passages decoded) only by the first of its episodes open at once. */
    private PassageIndex acquire(Task task) {
        synchronized (byTask) {
            Used u = byTask.get(task.id());
            PassageIndex index = u != null ? u.index() : null;
            if (index == null) {
                List<Passage> passages = HopTask.passages(task);
                if (passages.isEmpty()) throw new IllegalArgumentException(name + " task " + task.id() + " has no passages to search");
                // Indexing 20 paragraphs takes about a millisecond: cheap enough to do under the lock.
                index = new PassageIndex(passages, rule == AnswerRule.HOTPOT);
            }
            byTask.put(task.id(), new Used(index, u == null ? 1 : u.episodes() + 1));
            return index;
        }
    }

    private void release(String taskId) {
        synchronized (byTask) {
            Used u = byTask.get(taskId);
            if (u == null) return;
            if (u.episodes() > 1) {
                byTask.put(taskId, new Used(u.index(), u.episodes() - 1));
            } else {
                byTask.remove(taskId);
                u.index().close();
            }
        }
    }

    /** What an episode of {@code task} searches: the world's pages, or the task's own paragraphs. */
    public final List<Passage> corpus(Task task) {
        return shared != null ? shared.passages() : HopTask.passages(task);
    }

    /** Passages per search. */
    public final int topK() {
        return topK;
    }

    @Override
    public final List<String> reportColumns() {
        // Seed 000's table first: pass rate (F1 > 0.3), average F1, average hops; then the official metrics.
        return rule == AnswerRule.HOTPOT
                ? List.of("pass", "f1", "hops", "em", "support_f1", "support_em", "joint_f1", "joint_em", "outcome", "efficiency")
                : List.of("pass", "f1", "hops", "em", "support_f1", "support_em", "outcome", "efficiency");
    }

    @Override
    public String categoryKey() {
        return HopTask.HOPS;
    }

    @Override
    public final Optional<Oracle> oracle() {
        return Optional.of(new SearchOracle());
    }

    /** Episodes with an index open now (for tests). */
    final int openEpisodes() {
        return episodes.open();
    }

    /** Question indexes open now (for tests). */
    final int openIndexes() {
        synchronized (byTask) {
            return byTask.size();
        }
    }
}
