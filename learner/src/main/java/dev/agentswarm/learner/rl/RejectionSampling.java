package dev.agentswarm.learner.rl;

import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.learner.data.Conversation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rejection-sampling fine-tuning (seed 003's middle stage): the rollouts that finished with an
 * answer and whose reward reaches {@code threshold} become SFT conversations, at most
 * {@code perTask} of each task so easy tasks do not crowd out the rest.
 */
public final class RejectionSampling {

    private RejectionSampling() {}

    public static List<Conversation> keep(List<Trajectory> rollouts, double threshold, int perTask) {
        if (perTask < 1) throw new IllegalArgumentException("rft per-task must be >= 1, got " + perTask);
        Map<String, Integer> taken = new HashMap<>();
        List<Conversation> out = new ArrayList<>();
        for (Trajectory t : rollouts) {
            if (!t.stopReason().completed() || t.reward() == null || t.reward().total() < threshold) continue;
            int n = taken.merge(t.taskId(), 1, Integer::sum);
            if (n > perTask) continue;
            out.add(new Conversation(t.transcript(), List.of()));
        }
        return out;
    }
}
