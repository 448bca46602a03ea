package dev.agentswarm.learner.rl;

import dev.agentswarm.core.protocol.SamplingParams;
import dev.agentswarm.policy.embedded.BatchGenerator;
import dev.agentswarm.policy.embedded.Generation;
import dev.agentswarm.policy.embedded.GenerationRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The toy task GRPO tests learn: random 4-token prompts, 8 sampled tokens, rewarded by the share of
 * completion tokens below 128. Groups of {@link #GROUP} samples per prompt.
 */
final class ToyGrpoTask {

    static final int GROUP = 8;
    static final int MAX_TOKENS = 8;

    private ToyGrpoTask() {}

    static double reward(int[] tokens) {
        int low = 0;
        for (int t : tokens) if (t < 128) low++;
        return (double) low / tokens.length;
    }

    static List<int[]> prompts(long seed, int n) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(rng.ints(4, 0, 256).toArray());
        return out;
    }

    /** {@code samples} completions of each prompt, in prompt order. */
    static List<Generation> generate(BatchGenerator g, List<int[]> prompts, int samples) {
        long id = 0;
        for (int[] p : prompts) {
            for (int k = 0; k < samples; k++) g.submit(new GenerationRequest(id++, p, new SamplingParams(1.0, 1.0, 0, MAX_TOKENS, List.of(), null), null));
        }
        Map<Long, Generation> done = new HashMap<>();
        while (g.hasWork()) for (Generation x : g.step()) done.put(x.id(), x);
        List<Generation> out = new ArrayList<>();
        for (long i = 0; i < id; i++) out.add(done.get(i));
        return out;
    }

    static double meanReward(BatchGenerator g, List<int[]> prompts) {
        double sum = 0;
        List<Generation> gens = generate(g, prompts, GROUP);
        for (Generation x : gens) sum += reward(x.tokens());
        return sum / gens.size();
    }

    /** A group of samples per prompt of {@code batch}, with group-relative advantages of their rewards. */
    static List<RlSample> samples(BatchGenerator g, List<int[]> batch) {
        List<Generation> gens = generate(g, batch, GROUP);
        double[][] rewards = new double[batch.size()][GROUP];
        for (int i = 0; i < gens.size(); i++) rewards[i / GROUP][i % GROUP] = reward(gens.get(i).tokens());
        double[][] adv = GroupAdvantages.compute(rewards, GroupAdvantages.Scale.GROUP);
        List<RlSample> samples = new ArrayList<>();
        for (int i = 0; i < gens.size(); i++) {
            Generation x = gens.get(i);
            samples.add(RlSample.of(batch.get(i / GROUP), x.tokens(), x.logprobs(), adv[i / GROUP][i % GROUP]));
        }
        return samples;
    }
}
