package dev.agentswarm.environments.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.environments.Noise;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DisciplineTest {

    private static Turn assistant(int index, String text, List<String> formatErrors) {
        return new Turn(index, Role.ASSISTANT, text, new int[] {1, 2, 3}, null, null, 0, null, null, formatErrors, FinishReason.STOP,
                10, null, null);
    }

    private static Trajectory episode(StopReason stop, double reward, int completionTokens, Turn... turns) {
        return new Trajectory("e", "g", "t", List.of(), List.of(turns), "42", stop, null,
                new EpisodeStats(turns.length, 0, 0, 0, 0, completionTokens, 0), new RewardBreakdown(Map.of("pass", reward), reward));
    }

    @Test
    void fillerIsFoundInAnyAssistantTurnWhateverItsCase() {
        assertTrue(Discipline.hasFiller(Noise.FILLER + "I will use the calculator."), "the oracles' own noise is filler");
        assertTrue(Discipline.hasFiller("<think>\nCERTAINLY! Here it is.\n</think>"));
        assertFalse(Discipline.hasFiller("<think>\nI will use the calculator on the whole expression.\n</think>"));
        Trajectory clean = episode(StopReason.FINAL_ANSWER, 1, 20, assistant(0, "<think>\nLet me compute it.\n</think>", List.of()));
        Trajectory chattyLater = episode(StopReason.FINAL_ANSWER, 1, 20, assistant(0, "<think>\nLet me compute it.\n</think>", List.of()),
                assistant(2, "<think>\nI can help with that. The calculator returned the result.\n</think>\n\n42", List.of()));
        assertFalse(Discipline.hasFiller(clean));
        assertTrue(Discipline.hasFiller(chattyLater), "filler in the last turn counts");
    }

    @Test
    void validFormatNeedsEveryTurnCleanAndAFinalAnswer() {
        Turn ok = assistant(0, "x", List.of());
        Turn bad = assistant(2, "y", List.of("<tool_call> block 1 is not valid JSON"));
        assertTrue(Discipline.validFormat(episode(StopReason.FINAL_ANSWER, 1, 5, ok)));
        assertFalse(Discipline.validFormat(episode(StopReason.FINAL_ANSWER, 1, 5, ok, bad)), "a corrected format error still counts");
        assertFalse(Discipline.validFormat(episode(StopReason.MAX_TURNS, 0, 5, ok)), "no final answer");
    }

    @Test
    void scoreTakesThePenaltiesOffTheReward() {
        Trajectory chatty = episode(StopReason.FINAL_ANSWER, 1.2, 5, assistant(0, Noise.FILLER, List.of()));
        Trajectory broken = episode(StopReason.MAX_TURNS, 0.1, 5, assistant(0, "x", List.of("bad")));
        Trajectory clean = episode(StopReason.FINAL_ANSWER, 1.2, 5, assistant(0, "x", List.of()));
        assertEquals(0.7, Discipline.score(chatty, 0.5, 2.0), 1e-12);
        assertEquals(-1.9, Discipline.score(broken, 0.5, 2.0), 1e-12);
        assertEquals(1.2, Discipline.score(clean, 0.5, 2.0), 1e-12);
    }

    @Test
    void theEvaluationReportsFillerFormatAndTokensPerAnswer() {
        List<EvalReport.Episode> runs = new ArrayList<>();
        Task task = new Task("a", "q", "42", Map.of());
        runs.add(new EvalReport.Episode(task, episode(StopReason.FINAL_ANSWER, 1, 30, assistant(0, Noise.FILLER, List.of()))));
        runs.add(new EvalReport.Episode(task, episode(StopReason.FINAL_ANSWER, 1, 10, assistant(0, "x", List.of()))));
        runs.add(new EvalReport.Episode(task, episode(StopReason.FINAL_ANSWER, 0, 20, assistant(0, "y", List.of("bad")))));
        runs.add(new EvalReport.Episode(task, episode(StopReason.POLICY_ERROR, 0, 40, assistant(0, "z", List.of()))));
        EvalReport r = new EvalReport("arithmetic", "heldout", "p", List.of("pass"), null, runs);
        assertEquals(0.25, r.facts().get("filler_rate"), 1e-12);
        assertEquals(0.5, r.facts().get("valid_format_rate"), 1e-12);
        assertEquals(25.0, r.facts().get("tokens_per_answer"), 1e-12);
        assertTrue(r.toMarkdown().contains("| filler rate | valid format | tokens per answer |"), r.toMarkdown());
    }
}
