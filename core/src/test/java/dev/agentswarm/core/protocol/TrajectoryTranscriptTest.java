package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.agentswarm.core.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrajectoryTranscriptTest {

    @Test
    void theTranscriptIsThePromptThenEveryTurnUnderItsRole() {
        Completion call = Completion.ofText("<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6*7\"}}\n</tool_call>", 10, 5);
        Completion answer = Completion.ofText("42", 20, 1);
        List<Turn> turns = List.of(
                Turn.assistant(0, call, List.of(), List.of(), null, null),
                Turn.observation(1, Role.USER, "<tool_response>\n42\n</tool_response>", List.of(), null),
                Turn.assistant(2, answer, List.of(), List.of(), null, null));
        Trajectory t = new Trajectory("e", "g", "t", List.of(Message.system("sys"), Message.user("6*7?")), turns, "42",
                StopReason.FINAL_ANSWER, null, null, null);
        List<Message> transcript = t.transcript();
        assertEquals(List.of(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT),
                transcript.stream().map(Message::role).toList());
        assertEquals(call.text(), transcript.get(2).content(), "completions stay raw, in the episode's format");
        assertEquals("42", transcript.get(4).content());
        assertFalse(Json.write(t).contains("transcript"), "a derived view, not a serialised field");
    }
}
