package dev.agentswarm.app;

import com.typesafe.config.Config;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.testkit.RunRecording;
import dev.agentswarm.workers.EpisodeServices;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Replays a recorded run on an embedded node and compares every trajectory with the recorded one. */
public final class Replays {

    /** The replayed trajectories and, per episode that differs, what differs first. */
    public record Outcome(List<Trajectory> replayed, List<String> mismatches, long wallNanos) {}

    private Replays() {}

    public static Outcome replay(RunRecording recording, Config config, int maxInflight) throws Exception {
        List<BatchRunner.Job> jobs = recording.episodes().stream()
                .map(e -> new BatchRunner.Job(e.episodeId(), e.groupId(), e.task(), e.spec())).toList();
        if (jobs.isEmpty()) throw new IllegalArgumentException("the recording holds no episodes");
        long t0 = System.nanoTime();
        List<Trajectory> replayed;
        try (SwarmNode node = SwarmNode.startEmbedded(config, new EpisodeServices(recording.policy(), recording.tools()))) {
            replayed = EpisodeRuns.runAll(node, jobs, maxInflight, t -> {});
        }
        long wall = System.nanoTime() - t0;
        List<String> mismatches = new ArrayList<>();
        var recorded = recording.trajectories();
        for (Trajectory t : replayed) {
            Trajectory r = recorded.get(t.episodeId());
            String diff = r == null ? "no recorded trajectory" : firstDifference(r.withoutTimings(), t.withoutTimings());
            if (diff != null) mismatches.add(t.episodeId() + ": " + diff);
        }
        return new Outcome(replayed, mismatches, wall);
    }

    /** Null when equal, else a short description of the first difference. */
    static String firstDifference(Trajectory expected, Trajectory actual) {
        if (expected.equals(actual)) return null;
        if (expected.stopReason() != actual.stopReason()) {
            return "stop reason " + actual.stopReason() + ", recorded " + expected.stopReason();
        }
        int n = Math.min(expected.turns().size(), actual.turns().size());
        for (int i = 0; i < n; i++) {
            Turn e = expected.turns().get(i);
            Turn a = actual.turns().get(i);
            if (!e.equals(a)) return "turn " + i + " differs: replayed " + a + ", recorded " + e;
        }
        if (expected.turns().size() != actual.turns().size()) {
            return actual.turns().size() + " turns, recorded " + expected.turns().size();
        }
        if (!Objects.equals(expected.finalAnswer(), actual.finalAnswer())) {
            return "final answer '" + actual.finalAnswer() + "', recorded '" + expected.finalAnswer() + "'";
        }
        return "trajectories differ outside the turns (prompt, stats or error)";
    }
}
