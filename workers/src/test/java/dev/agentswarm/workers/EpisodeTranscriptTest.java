package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.context.TokenCounter;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.Timing;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;
import dev.agentswarm.core.protocol.WorkerProtocol.RunEpisode;
import java.util.List;
import org.junit.jupiter.api.Test;

class EpisodeTranscriptTest {

    /** One token a word, so the counts below can be read off the texts. */
    private static final TokenCounter WORDS = text -> text.isBlank() ? 0 : text.trim().split("\\s+").length;

    private final Message system = Message.system("be brief");
    private final Message task = Message.user("add two and two");

    @Test
    void thePromptIsTheSystemAndTheOpeningAndTheContextCountsThem() {
        EpisodeTranscript t = new EpisodeTranscript(system, 10, task, WORDS);
        assertEquals(List.of(system, task), t.messages());
        assertEquals(10 + 4 + 4, t.contextTokens(), "the system's tokens as given, the task's 4 words and a message's 4");
        Trajectory done = t.trajectory(run(), StopReason.MAX_TURNS, null, null, null, 7);
        assertEquals(List.of(system, task), done.prompt());
        assertEquals(0, done.stats().turns());
    }

    @Test
    void aTurnsTokensToolResultsAndObservationsAreCountedIntoTheStats() {
        EpisodeTranscript t = new EpisodeTranscript(system, 10, task, WORDS);
        assertEquals(1, t.startTurn());
        Completion said = Completion.ofText("let me see", 30, 0);
        assertEquals(3, t.answered(said), "a policy that does not say how many it generated: its words are counted");
        ToolCall call = new ToolCall("c1", "calculator", null);
        t.assistant(said, List.of(call), List.of(), null, Timing.NONE, Message.assistant("let me see"));
        List<ToolResult> results = List.of(new ToolResult("c1", "calculator", "4", ToolStatus.OK, false, 0),
                new ToolResult("c2", "search", "no such tool", ToolStatus.ERROR, false, 0));
        t.toolResults(results, List.of(Message.user("4"), Message.user("no such tool")), Timing.NONE);
        assertEquals(3 + 4, t.budgetUsed(), "the generated tokens and the observation's, joined: 4 + no such tool");
        Turn observed = t.trajectory(run(), StopReason.DEADLINE, null, null, null, 0).turns().get(1);
        assertEquals("4\nno such tool", observed.text());
        assertEquals(5, t.messages().size(), "system, task, the assistant's turn and each rendered observation");

        assertEquals(2, t.startTurn());
        t.askTurnAgain();
        assertEquals(1, t.policyTurns(), "a retried call is the same turn");
        t.formatError();
        Trajectory done = t.trajectory(run(), StopReason.FINAL_ANSWER, "4", null, null, 99);
        assertEquals(1, done.stats().turns());
        assertEquals(2, done.stats().toolCalls());
        assertEquals(1, done.stats().toolSuccesses());
        assertEquals(1, done.stats().formatErrors());
        assertEquals(30, done.stats().promptTokens());
        assertEquals(3, done.stats().completionTokens());
        assertEquals("ep-1", done.episodeId());
        assertEquals("4", done.finalAnswer());
    }

    @Test
    void aPromptThatExtendsThePreviousTurnsKeepsOnlyWhatWasAdded() {
        EpisodeTranscript t = new EpisodeTranscript(system, 10, task, WORDS);
        t.assistant(ids(new int[] {1, 2, 3}, new int[] {4, 5}), List.of(), List.of(), null, Timing.NONE, Message.assistant("a"));
        t.assistant(ids(new int[] {1, 2, 3, 4, 5, 6, 7}, new int[] {8}), List.of(), List.of(), null, Timing.NONE,
                Message.assistant("b"));
        List<Turn> turns = t.trajectory(run(), StopReason.MAX_TURNS, null, null, null, 0).turns();
        assertFalse(turns.get(0).promptExtends());
        assertTrue(turns.get(1).promptExtends());
        assertArrayEquals(new int[] {6, 7}, turns.get(1).promptIds());
    }

    @Test
    void theAgentsLastWordsAreItsLastTurnWithoutToolCalls() {
        EpisodeTranscript t = new EpisodeTranscript(system, 10, Message.assistant("hello"), WORDS);
        assertNull(t.lastAgentMessage(), "the greeting is the prompt's, not a turn");
        t.assistant(Completion.ofText("it is booked", 0, 3), List.of(), List.of(), null, Timing.NONE, Message.assistant("x"));
        t.assistant(Completion.ofText("checking", 0, 1), List.of(new ToolCall("c", "lookup", null)), List.of(), null, Timing.NONE,
                Message.assistant("y"));
        t.observe(Role.USER, "thanks", List.of(Message.user("thanks")), List.of(), Timing.NONE);
        assertEquals("it is booked", t.lastAgentMessage());
    }

    private static Completion ids(int[] prompt, int[] generated) {
        return new Completion("x", List.of(), generated, null, FinishReason.STOP, 0, prompt.length, generated.length, 0, prompt);
    }

    private static RunEpisode run() {
        return new RunEpisode("ep-1", "g-1", Task.of("t-1", "add two and two"), null, 0, null);
    }
}
