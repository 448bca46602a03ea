package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import java.util.concurrent.CompletionException;
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
            assertEquals("[no output]", call(python, "a", "code", "x = 'episode a'"));
            call(python, "b", "code", "x = 'episode b'");
            assertEquals("'episode a'", call(interpreter, "a", "code", "x"));
            assertEquals("'episode b'", call(python, "b", "code", "x"));
            call(bash, "a", "command", "echo saved > note.txt");
            assertEquals("'saved\\n'", call(python, "a", "code", "open('note.txt').read()"));
            assertEquals(2, tools.sessions());
            python.release("a");
            bash.release("a"); // every tool of the episode is told; the second is a no-op
            assertEquals(1, tools.sessions());
            Thread.sleep(200);
            assertEquals(1, sandbox.openSessions());
            assertTrue(call(python, "a", "code", "x").contains("NameError"), "a later episode with that id starts afresh");
            call(python, "b", "code", "y = 1");
            tools.session("b").toCompletableFuture().join().close(); // as the idle sweep would
            assertEquals("2", call(python, "b", "code", "1 + 1"), "a closed session is opened again, not failed forever");
            tools.release("a");
            tools.release("b");
        }
    }

    @Test
    void withoutBubblewrapACallFailsWithHowToFixItAndBadArgumentsAreRefused() {
        SandboxSettings missing = SandboxTest.settings("bwrap-path = \"/nonexistent/bwrap\"");
        CodeTools tools = new CodeTools(() -> Sandbox.create(missing));
        CompletionException e = assertThrows(CompletionException.class, () -> call(tools.python(), "a", "code", "1 + 1"));
        assertTrue(e.getCause() instanceof SandboxUnavailableException, e.toString());
        assertTrue(e.getCause().getMessage().contains("apt-get install bubblewrap"), e.getCause().getMessage());
        assertEquals(0, tools.sessions(), "nothing is kept for a call that could not run");
        CompletionException bad = assertThrows(CompletionException.class,
                () -> tools.bash().invoke(Json.object().put("code", "ls"), new ToolContext("a", 1, 0, "c", 10_000)).toCompletableFuture().join());
        assertTrue(bad.getCause().getMessage().contains("command"), bad.getCause().getMessage());
    }

    @Test
    void theModelReadsOutputErrorsExitStatusAndLimit() {
        assertEquals("[no output]", CodeTools.render(new Execution(0, "", "", false, false, 1, Execution.Limit.NONE)));
        assertEquals("4\n[stderr]\nboom\n[exit status 1]",
                CodeTools.render(new Execution(1, "4", "boom", false, false, 1, Execution.Limit.NONE)));
        assertEquals("[stderr]\nWallLimit\n[stopped: wall-clock time limit]\n[exit status 124]",
                CodeTools.render(new Execution(124, "", "WallLimit\n", false, false, 1, Execution.Limit.WALL_TIME)));
    }
}
