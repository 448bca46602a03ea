package dev.agentswarm.environments.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvalReportTest {

    @Test
    void passAtKAndPassHatKMatchTheirClosedForms() {
        // n = 4 samples, c = 2 passed: pass@1 = 0.5, pass@2 = 1 - C(2,2)/C(4,2) = 5/6; pass^2 = C(2,2)/C(4,2) = 1/6.
        assertEquals(0.5, PassAtK.passAt(4, 2, 1), 1e-12);
        assertEquals(5.0 / 6, PassAtK.passAt(4, 2, 2), 1e-12);
        assertEquals(1.0, PassAtK.passAt(4, 2, 3), 1e-12);
        assertEquals(0.5, PassAtK.passHat(4, 2, 1), 1e-12);
        assertEquals(1.0 / 6, PassAtK.passHat(4, 2, 2), 1e-12);
        assertEquals(0.0, PassAtK.passHat(4, 2, 3), 1e-12);
        assertEquals(1.0, PassAtK.passHat(3, 3, 3), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> PassAtK.passAt(2, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> PassAtK.passHat(2, 1, 3));
    }

    private static EvalReport.Episode episode(String task, String category, double pass, double f1, int toolCalls, int ok) {
        Task t = new Task(task, "q", "a", Map.of("category", category));
        RewardBreakdown r = new RewardBreakdown(Map.of("pass", pass, "f1", f1), f1);
        Trajectory tr = new Trajectory(task + "#", task, task, List.of(), List.of(), "a", StopReason.FINAL_ANSWER, null,
                new EpisodeStats(2, toolCalls, ok, 0, 0, 0, 0), r);
        return new EvalReport.Episode(t, tr);
    }

    @Test
    void meansByCategoryAndPassRatesOverSamples() {
        List<EvalReport.Episode> runs = new ArrayList<>();
        // Task a (2_step): both samples pass. Task b (3_step): one of two.
        runs.add(episode("a", "2_step", 1, 1.0, 2, 2));
        runs.add(episode("a", "2_step", 1, 0.8, 2, 1));
        runs.add(episode("b", "3_step", 1, 0.6, 3, 3));
        runs.add(episode("b", "3_step", 0, 0.2, 1, 0));
        EvalReport report = new EvalReport("multihop", "heldout", "oracle", List.of("pass", "f1"), "category", runs);
        assertEquals(0.75, report.means().get("pass"), 1e-12);
        assertEquals(0.65, report.means().get("f1"), 1e-12);
        assertEquals(0.65, report.means().get("reward"), 1e-12);
        assertEquals(6.0 / 8, report.facts().get("tool_success_rate"), 1e-12);
        // pass@1 = mean(1, 0.5); pass@2 = mean(1, 1); pass^2 = mean(1, 0).
        assertEquals(0.75, report.passK().get(1)[0], 1e-12);
        assertEquals(1.0, report.passK().get(2)[0], 1e-12);
        assertEquals(0.5, report.passK().get(2)[1], 1e-12);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> cats = (Map<String, Map<String, Object>>) report.toMap().get("by_category");
        assertEquals(0.9, (Double) cats.get("2_step").get("f1"), 1e-12);
        assertEquals(0.5, (Double) cats.get("3_step").get("pass"), 1e-12);
        String md = report.toMarkdown();
        assertTrue(md.contains("| 2_step (2) | 1.000 | 0.900 | 0.900 |"), md);
        assertTrue(md.contains("| 2 | 1.000 | 0.500 |"), md);
    }

    @Test
    void anEpisodeWithoutARewardDoesNotPass() {
        Task t = Task.of("t", "q");
        Trajectory failed = Trajectory.notRun("t#0", "t", "t", StopReason.INVALID_REQUEST, "unknown tool");
        EvalReport report = new EvalReport("x", "train", "p", List.of("pass"), null, List.of(new EvalReport.Episode(t, failed)));
        assertEquals(0.0, report.passK().get(1)[0]);
        assertEquals(1.0, report.facts().get("errors"));
    }
}
