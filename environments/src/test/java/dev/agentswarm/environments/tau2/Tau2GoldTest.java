package dev.agentswarm.environments.tau2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The gold actions of every local retail and mock task, run through the real tools as an agent (or
 * the user) would, then graded: the databases match the gold replay on every task, and the reward is
 * what τ²'s own evaluator gives the same conversation (checked against its code at the data's commit).
 */
class Tau2GoldTest {

    static Path shared(String domain) {
        for (Path p : List.of(Path.of("../../shared/data/tau2", domain), Path.of("../shared/data/tau2", domain))) {
            if (Files.isRegularFile(p.resolve("tasks.json")) || Files.isRegularFile(p.resolve("tasks_small.json"))) return p;
        }
        return null;
    }

    /** The conversation the gold actions make: the task's history, then each action as a call and its answer. */
    static List<Tau2Message> goldConversation(Tau2Domain domain, JsonNode task) {
        Tau2Environment live = domain.fresh();
        List<Tau2Message> history = Tau2Evaluator.history(task);
        live.setState(task.get("initial_state"), history);
        List<Tau2Message> out = new ArrayList<>(history);
        out.add(Tau2Message.text(Tau2Message.Role.ASSISTANT, "Hi! How can I help you today?"));
        int n = 0;
        for (JsonNode action : task.path("evaluation_criteria").path("actions")) {
            Tau2Message.Requestor who = Tau2Message.Requestor.parse(action.path("requestor").asText("assistant"));
            Tau2Message.Call call = new Tau2Message.Call("gold-" + n++, action.path("name").asText(), action.path("arguments"), who);
            out.add(Tau2Message.calls(who == Tau2Message.Requestor.USER ? Tau2Message.Role.USER : Tau2Message.Role.ASSISTANT, List.of(call)));
            Tau2Environment.Response r = live.respond(call);
            out.add(Tau2Message.tool(call.id(), r.content(), who, r.error()));
        }
        return out;
    }

    @Test
    void retailGoldActionsReproduceEveryExpectedDatabase() {
        Path dir = shared("retail");
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        Tau2Domain retail = Tau2Domain.load(Tau2Domain.Kind.RETAIL, dir);
        Map<String, Integer> outcomes = new TreeMap<>();
        List<JsonNode> all = retail.tasks("base");
        assertEquals(114, all.size());
        for (JsonNode task : all) {
            Tau2Evaluator.Result r = Tau2Evaluator.evaluate(task, goldConversation(retail, task), true, retail::fresh);
            assertEquals(1.0, r.components().get("db"), "task " + task.path("id").asText());
            outcomes.merge(r.reward() == null ? "judge needed" : r.reward() == 1.0 ? "1" : "0", 1, Integer::sum);
        }
        // 40 tasks are gated by natural-language assertions that need an LLM judge; the other 74 score 1 on gold alone.
        assertEquals(Map.of("1", 74, "judge needed", 40), outcomes);
        assertEquals(74, retail.tasks("train").size());
        assertEquals(40, retail.tasks("test").size());
    }

    @Test
    void mockGoldActionsScoreAsTau2Does() {
        Path dir = shared("mock");
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        Tau2Domain mock = Tau2Domain.load(Tau2Domain.Kind.MOCK, dir);
        Map<String, Double> rewards = new TreeMap<>();
        for (JsonNode task : mock.tasks("base")) {
            Tau2Evaluator.Result r = Tau2Evaluator.evaluate(task, goldConversation(mock, task), true, mock::fresh);
            rewards.put(task.path("id").asText(), r.reward());
            Tau2Evaluator.Result kept = Tau2Evaluator.evaluate(task, goldConversation(mock, task), true, mock::fresh, mock::matchesGold);
            assertEquals(r.components(), kept.components(), "the kept gold grades as the replayed gold: " + task.path("id").asText());
        }
        // Another copy of a task under the same id (another node's data) is graded by its own gold.
        JsonNode update = mock.task("update_task_1");
        com.fasterxml.jackson.databind.node.ObjectNode other = update.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) other.path("evaluation_criteria").path("actions").get(0).path("arguments"))
                .put("status", "pending");
        List<Tau2Message> done = goldConversation(mock, update);
        assertEquals(1.0, Tau2Evaluator.evaluate(update, done, true, mock::fresh, mock::matchesGold).components().get("db"));
        assertEquals(0.0, Tau2Evaluator.evaluate(other, done, true, mock::fresh, mock::matchesGold).components().get("db"));
        Map<String, Double> expected = new TreeMap<>(Map.of("create_task_1", 1.0, "create_task_1_with_env_assertions", 1.0,
                "create_task_1_nl_eval", 1.0, "update_task_1", 1.0, "update_task_with_message_history", 1.0,
                "update_task_with_initialization_data", 0.0, "update_task_with_initialization_actions", 1.0,
                "update_task_with_history_and_env_assertions", 0.0, "update_task_with_user_tools", 0.0, "impossible_task_1", 1.0));
        assertEquals(expected, rewards);

        JsonNode asserted = mock.task("create_task_1_with_env_assertions");
        Tau2Evaluator.Result nothing = Tau2Evaluator.evaluate(asserted, List.of(Tau2Message.text(Tau2Message.Role.ASSISTANT, "Hello.")), true,
                mock::fresh);
        assertEquals(0.0, nothing.components().get("env_assertion"), "an assertion about a task never created does not hold");
        assertEquals(0.0, nothing.reward());
    }

    @Test
    void telecomGoldActionsByTheAgentAndTheUserPassEveryAssertion() {
        Path dir = shared("telecom");
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        Tau2Domain telecom = Tau2Domain.load(Tau2Domain.Kind.TELECOM, dir);
        Map<String, Double> rewards = new TreeMap<>();
        List<JsonNode> all = telecom.tasks("small");
        assertEquals(20, all.size());
        for (JsonNode task : all) {
            Tau2Evaluator.Result r = Tau2Evaluator.evaluate(task, goldConversation(telecom, task), true, telecom::fresh);
            rewards.put(task.path("id").asText(), r.reward());
            assertEquals(1.0, r.components().get("env_assertion"), "task " + task.path("id").asText());
        }
        assertEquals(20, rewards.values().stream().filter(v -> v != null && v == 1.0).count(), rewards.toString());
        // Doing nothing leaves the phone broken: only the two tasks whose line must stay without service (to be
        // transferred) hold their assertions, and their ACTION check (the transfer) then fails them.
        int held = 0;
        for (JsonNode task : all) {
            Tau2Evaluator.Result idle = Tau2Evaluator.evaluate(task, List.of(Tau2Message.text(Tau2Message.Role.ASSISTANT, "Hi!")), true, telecom::fresh);
            if (idle.components().get("env_assertion") == 1.0) held++;
            assertEquals(0.0, idle.reward(), "task " + task.path("id").asText() + " needs something done");
        }
        assertEquals(2, held);
        assertTrue(telecom.policy().contains("<tech_support_policy>"), "the manual is part of the agent's policy");
    }
}
