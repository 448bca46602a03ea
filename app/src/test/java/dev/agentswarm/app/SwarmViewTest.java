package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The live tree: agents under their orchestrator with state, turns and last action; one line per event off a terminal. */
class SwarmViewTest {

    private static ObjectNode event(double tMs, String agent, String kind) {
        return Json.object().put("t_ms", tMs).put("agent", agent).put("kind", kind);
    }

    @Test
    void theTreeShowsEachAgentsStateTurnsAndLastAction() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SwarmView view = SwarmView.lines(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        view.accept(event(0, "root", "agent_started").put("mode", "orchestrator").put("attempt", 1));
        view.accept(event(1, "root", "turn").put("turn", 1).put("action", "spawn_subagents({...})").put("tokens", 30));
        ObjectNode plan = event(2, "root", "plan").put("accepted", true).put("round", 1).put("join", "all");
        plan.putArray("subtasks").addObject().put("id", "a").put("agent", "root/a").put("mode", "search");
        plan.withArray("subtasks").addObject().put("id", "b").put("agent", "root/b").put("mode", "coding");
        view.accept(plan);
        view.accept(event(3, "root/a", "agent_started").put("mode", "search").put("attempt", 1));
        view.accept(event(4, "root/a", "turn").put("turn", 2).put("action", "search({\"q\": \"x\"})").put("tokens", 50));
        view.accept(event(5, "root/b", "agent_started").put("mode", "coding").put("attempt", 1));
        view.accept(event(6, "root/b", "retry").put("attempt", 2).put("reason", "policy error: down"));
        view.accept(event(7, "root/b", "agent_started").put("mode", "coding").put("attempt", 2));
        view.accept(event(8, "root/b", "agent_finished").put("state", "done").put("answer", "42").put("turns", 3).put("tokens", 9));

        List<String> tree = view.tree();
        assertEquals(3, tree.size(), tree.toString());
        assertEquals("root  orchestrator  running  1 turn  spawn_subagents({...})", tree.get(0));
        assertEquals("├─ a  search  running  2 turns  search({\"q\": \"x\"})", tree.get(1));
        assertEquals("└─ b  coding  done (attempt 2)  3 turns  answer: 42", tree.get(2));
        String lines = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(lines.contains("root round 1: 2 sub-agents [a, b], join all"), lines);
        assertTrue(lines.contains("root/b retry 2: policy error: down"), lines);
        assertTrue(lines.contains("root/b done after 3 turns: answer: 42"), lines);
        assertEquals(7, lines.lines().count(), "four starts, the plan, the retry and the end; no line per turn: " + lines);
    }
}
