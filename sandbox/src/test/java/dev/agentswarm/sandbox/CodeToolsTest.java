package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import org.junit.jupiter.api.Test;

class CodeToolsTest {

    private static String call(Tool tool, String episode, String field, String code) {
        return tool.invoke(Json.object().put(field, code), new ToolContext(episode, 1, 0, "c", 10_000)).toCompletableFuture().join();
    }

    @Test
    void eachEpisodeHasItsOwnSessionSharedByItsToolsAndClosedWhenItEnds() throws Exception {
        try (Sandbox sandbox = Sandbox.create(SandboxTest.settings("sessions = 4, warm-sessions = 1"))) {
            CodeTools tools = new CodeTools(sandbox);
            Tool python = tools.python();
            Tool interpreter = tools.codeInterpreter();
            Tool bash = tools.bash();
            assertEquals("[no output]\n", call(python, "a", "code", "x = 'episode a'"));
            call(python, "b", "code", "x = 'episode b'");
            assertEquals("'episode a'\n", call(interpreter, "a", "code", "x"));
            assertEquals("'episode b'\n", call(python, "b", "code", "x"));
            call(bash, "a", "command", "echo saved > note.txt");
            assertEquals("'saved\\n'\n", call(python, "a", "code", "open('note.txt').read()"));
            assertEquals(2, tools.sessions());
            python.release("a");
            bash.release("a"); // every tool of the episode is told; the second is a no-op
            assertEquals(1, tools.sessions());
            Thread.sleep(200);
            assertEquals(1, sandbox.openSessions());
            assertTrue(call(python, "a", "code", "x").contains("NameError"), "a later episode with that id starts afresh");
            tools.release("a");
            tools.release("b");
        }
    }

    @Test
    void theModelReadsOutputErrorsExitStatusAndLimit() {
        assertEquals("[no output]\n", CodeTools.render(new Execution(0, "", "", false, false, 1, Execution.Limit.NONE)));
        assertEquals("4\n[stderr]\nboom\n[exit status 1]\n",
                CodeTools.render(new Execution(1, "4", "boom", false, false, 1, Execution.Limit.NONE)));
        assertEquals("[stderr]\nWallLimit\n[stopped: wall-clock time limit]\n[exit status 124]\n",
                CodeTools.render(new Execution(124, "", "WallLimit\n", false, false, 1, Execution.Limit.WALL_TIME)));
    }
}
