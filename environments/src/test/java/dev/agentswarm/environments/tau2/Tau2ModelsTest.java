package dev.agentswarm.environments.tau2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.ConversationPartner;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.EpisodeStats;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.environments.Split;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The user played by a model and the natural-language assertions graded by one, with scripted models standing in. */
class Tau2ModelsTest {

    private static Tau2Suite retail() {
        return suite(Tau2Suite.RETAIL, Tau2Domain.Kind.RETAIL);
    }

    /** The suite on the domain's data in ../shared (the test is skipped without it). */
    private static Tau2Suite suite(String name, Tau2Domain.Kind kind) {
        Path dir = Tau2GoldTest.shared(kind.name().toLowerCase(java.util.Locale.ROOT));
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        return new Tau2Suite(name, Tau2Domain.load(kind, dir), 60);
    }

    private static Policy replying(List<CompletionRequest> seen, String... replies) {
        return request -> {
            seen.add(request);
            String text = replies[Math.min(seen.size(), replies.length) - 1];
            return CompletableFuture.completedFuture(Completion.ofText(text, 10, 10));
        };
    }

    @Test
    void theModelUserSeesTheGuidelinesItsScenarioAndTheAgentAsTheOtherSide() {
        Tau2Suite suite = retail();
        List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
        Policy user = replying(seen, "Hi, I want to exchange a keyboard.", "Yes, the email is x@example.com.", "Thanks! ###STOP###");
        Task task = suite.tasks(Split.TRAIN, 1).get(0);
        TaskEnvironment env = suite.withModels(user, null).open(task, "ep-1");
        ConversationPartner p = env.partner();
        ConversationPartner.Reply opening = p.reply(p.greeting()).toCompletableFuture().join();
        assertEquals("Hi, I want to exchange a keyboard.", opening.text());
        assertFalse(opening.ends());
        List<Message> first = seen.get(0).messages();
        assertEquals(Role.SYSTEM, first.get(0).role());
        assertTrue(first.get(0).content().contains("###STOP###") && first.get(0).content().contains("<scenario>\nInstructions:"),
                first.get(0).content());
        assertEquals(Message.user("Hi! How can I help you today?"), first.get(1), "the agent's greeting is the user model's user turn");
        assertEquals("ep-1/user", seen.get(0).episodeId());
        assertTrue(seen.get(0).tools().isEmpty(), "the retail customer has no tools");
        assertEquals("none", seen.get(0).toolChoice());
        assertFalse(first.get(0).content().contains("tools to perform"));

        p.reply("Could you give me your email?").toCompletableFuture().join();
        List<Message> second = seen.get(1).messages();
        assertEquals(Message.assistant("Hi, I want to exchange a keyboard."), second.get(2), "its own words are the assistant's");
        assertEquals(Message.user("Could you give me your email?"), second.get(3));
        assertTrue(p.reply("Anything else?").toCompletableFuture().join().ends(), "###STOP### ends the conversation");
        List<Tau2Message> log = ((Tau2Episode) env).conversation();
        assertEquals(Tau2Message.Role.USER, log.get(log.size() - 1).role());
    }

    /**
     * A telecom customer played by a model: it is offered the phone's tools, its calls run on the phone and
     * are recorded as the user's, their answers come back to it and only its words reach the agent; with the
     * gold actions done this way (the agent's by the agent, the user's by the user's model) the task passes.
     */
    @Test
    void aModelPlayedTelecomUserWorksItsPhoneWithItsOwnTools() {
        Tau2Suite suite = suite(Tau2Suite.TELECOM, Tau2Domain.Kind.TELECOM);
        Task task = suite.tasks(Split.HELDOUT, 50).stream().filter(t -> userActions(t).size() >= 2).findFirst().orElseThrow();
        JsonNode gold = read(task.metadata().get(Tau2Suite.TASK));
        List<JsonNode> userActions = userActions(task);
        List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
        int[] next = {0};
        Policy phoneUser = request -> {
            seen.add(request);
            Message last = request.messages().get(request.messages().size() - 1);
            if (last.role() == Role.TOOL) {
                return done(Completion.ofText("<think>what does it say?</think>Done, my phone says: " + last.content(), 5, 5));
            }
            if (request.messages().size() == 2) return done(Completion.ofText("My mobile data does not work.", 5, 5));
            if (next[0] < userActions.size()) {
                JsonNode a = userActions.get(next[0]++);
                // arguments as an OpenAI-compatible server sends them: JSON in a string
                JsonNode args = dev.agentswarm.core.json.Json.MAPPER.getNodeFactory().textNode(a.path("arguments").toString());
                return done(new Completion("", List.of(new ToolCall(null, a.path("name").asText(), args)), null, null, null, 0, 5, 5));
            }
            return done(Completion.ofText("It works now, thanks! ###STOP###", 5, 5));
        };
        Tau2Episode env = (Tau2Episode) suite.withModels(phoneUser, null).open(task, "ep-t");
        ConversationPartner p = env.partner();
        assertEquals("My mobile data does not work.", p.reply(p.greeting()).toCompletableFuture().join().text());
        CompletionRequest first = seen.get(0);
        assertTrue(first.messages().get(0).content().contains("tools to perform"), "the guidelines for a user with tools");
        assertEquals("auto", first.toolChoice());
        List<String> offered = first.tools().stream().map(dev.agentswarm.core.protocol.ToolSpec::name).toList();
        assertTrue(offered.containsAll(List.of("toggle_airplane_mode", "check_status_bar", "reboot_device")), offered.toString());
        assertTrue(env.tools().stream().noneMatch(t -> offered.contains(t.name())), "the agent is not offered the phone's tools");

        ConversationPartner.Reply last = null;
        for (JsonNode a : gold.path("evaluation_criteria").path("actions")) {
            if ("user".equals(a.path("requestor").asText())) {
                int before = seen.size();
                last = p.reply("Please run " + a.path("name").asText() + " on your phone.").toCompletableFuture().join();
                assertTrue(last.text().startsWith("Done, my phone says: "), "the user's reasoning is not said: " + last.text());
                assertEquals(before + 2, seen.size(), "one request for the call, one after its answer");
                List<Message> after = seen.get(seen.size() - 1).messages();
                assertEquals(Role.TOOL, after.get(after.size() - 1).role(), "the call's answer goes back to the user's model");
                assertEquals(a.path("name").asText(), after.get(after.size() - 2).toolCalls().get(0).name());
            } else {
                env.tools().stream().filter(t -> t.name().equals(a.path("name").asText())).findFirst().orElseThrow()
                        .invoke(a.path("arguments"), null).toCompletableFuture().join();
            }
        }
        assertFalse(last.ends());
        assertTrue(p.reply("Is everything working?").toCompletableFuture().join().ends());
        List<Tau2Message> userCalls = env.conversation().stream().filter(m -> m.role() == Tau2Message.Role.USER && m.hasCalls()).toList();
        assertEquals(userActions.size(), userCalls.size());
        assertTrue(userCalls.stream().allMatch(m -> m.calls().get(0).requestor() == Tau2Message.Requestor.USER));
        assertTrue(userCalls.stream().allMatch(m -> m.calls().get(0).arguments().isObject()), "arguments decoded from their JSON text");
        RewardBreakdown r = env.score(stopped());
        assertEquals(1.0, r.total(), r.components().toString());
        assertEquals(1.0, r.components().get("env_assertion"));
    }

    /** A user model that keeps calling a tool that fails is stopped at τ²'s ten errors: the episode ends there, earning nothing. */
    @Test
    void aUserModelStuckOnFailingCallsEndsTheConversation() {
        Tau2Suite suite = suite(Tau2Suite.TELECOM, Tau2Domain.Kind.TELECOM);
        Task task = suite.tasks(Split.HELDOUT, 1).get(0);
        List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
        Policy stuck = request -> {
            seen.add(request);
            if (request.messages().size() == 2) return done(Completion.ofText("Hello.", 5, 5));
            return done(new Completion("", List.of(new ToolCall("c" + seen.size(), "fix_my_phone", read("{}"))),
                    null, null, null, 0, 5, 5));
        };
        Tau2Episode env = (Tau2Episode) suite.withModels(stuck, null).open(task, "ep-s");
        env.partner().reply(env.partner().greeting()).toCompletableFuture().join();
        ConversationPartner.Reply last = env.partner().reply("Please check your messaging app.").toCompletableFuture().join();
        assertEquals(new ConversationPartner.Reply("", false), last, "nothing more is said");
        assertEquals("τ²'s limit of 10 failed tool calls reached", env.limitReached(), "the episode stops at its next turn");
        long errors = env.conversation().stream().filter(Tau2Message::error).count();
        assertEquals(Tau2Episode.MAX_ERRORS, errors, "it stops at the tenth failed call");
        assertTrue(env.conversation().stream().filter(Tau2Message::error).allMatch(m -> m.content().startsWith("Error: ")));
    }

    /** A node's configuration names the user's and the judge's models; every node building the suite reaches the same ones. */
    @Test
    void theSuitesConfigurationNamesTheUserAndJudgeModels() {
        Path dir = Tau2GoldTest.shared("mock");
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        List<String> connected = new CopyOnWriteArrayList<>();
        List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
        dev.agentswarm.core.policy.ModelClients clients = (endpoint, model) -> {
            connected.add(model + "@" + endpoint);
            return replying(seen, "I need a task created. ###STOP###");
        };
        com.typesafe.config.Config block = com.typesafe.config.ConfigFactory.parseString("data-dir = \"" + dir + "\", max-turns = 10, reward = tau2,"
                + " user { endpoint = \"http://127.0.0.1:9/v1\", model = customer }, judge { endpoint = \"\", model = \"\" }");
        Tau2Suite suite = Tau2Suite.mock(block, clients);
        assertEquals(List.of("customer@http://127.0.0.1:9/v1"), connected, "no judge named: none connected");
        TaskEnvironment env = suite.open(suite.tasks(Split.HELDOUT, 1).get(0), "ep-c");
        assertTrue(env.partner().reply(env.partner().greeting()).toCompletableFuture().join().ends());
        assertEquals(1, seen.size(), "the configured model plays the user");
        assertTrue(seen.get(0).tools().stream().anyMatch(t -> t.name().equals("check_notifications")), "the mock user is offered its tools");

        for (String bad : new String[] {"user { endpoint = \"http://127.0.0.1:9/v1\" }", "judge { model = m }", "user { endpoint = \"ftp://x\", model = m }",
                "user = \"http://127.0.0.1:9/v1\""}) {
            var e = assertThrows(IllegalArgumentException.class, () -> Tau2Suite.mock(com.typesafe.config.ConfigFactory.parseString(bad)
                    .withFallback(block.withoutPath("user")), clients));
            assertTrue(e.getMessage().contains("endpoint"), e.getMessage());
        }
        var none = assertThrows(IllegalArgumentException.class, () -> Tau2Suite.mock(block, dev.agentswarm.core.policy.ModelClients.NONE));
        assertTrue(none.getMessage().contains("does not reach model endpoints"), none.getMessage());
    }

    private static CompletableFuture<Completion> done(Completion c) {
        return CompletableFuture.completedFuture(c);
    }

    private static List<JsonNode> userActions(Task task) {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (JsonNode a : read(task.metadata().get(Tau2Suite.TASK)).path("evaluation_criteria").path("actions")) {
            if ("user".equals(a.path("requestor").asText())) out.add(a);
        }
        return out;
    }

    @Test
    void theJudgeDecidesAGatedTaskAndABrokenAnswerFailsTheGrading() {
        Tau2Suite suite = retail();
        // Task 2 is gated by natural-language assertions: with the gold database and a judge, its reward is the judge's.
        JsonNode gated = Tau2Domain.load(Tau2Domain.Kind.RETAIL, Tau2GoldTest.shared("retail")).task("2");
        Task task = suite.tasks(Split.TRAIN, 200).stream().filter(t -> t.id().equals("tau2-retail-2")).findFirst().orElseThrow();
        for (boolean met : new boolean[] {true, false}) {
            List<CompletionRequest> seen = new CopyOnWriteArrayList<>();
            Policy judge = replying(seen, "```json\n{\"results\": [{\"expectedOutcome\": \"x\", \"reasoning\": \"y\", \"metExpectation\": " + met + "}]}\n```");
            Tau2Episode env = (Tau2Episode) suite.withModels(null, judge).open(task, "ep-2");
            playGold(env, gated);
            RewardBreakdown r = env.scoreAsync(stopped()).toCompletableFuture().join();
            assertEquals(met ? 1.0 : 0.0, r.total());
            assertEquals(met ? 1.0 : 0.0, r.components().get("nl_assertion"));
            assertFalse(r.components().containsKey("judge_needed"));
            String prompt = seen.get(0).messages().get(1).content();
            assertTrue(prompt.startsWith("conversation:\nassistant: Hi! How can I help you today?"), prompt);
            assertTrue(prompt.contains("\nexpectedOutcomes:\n['"), prompt);
        }
        assertThrows(IllegalStateException.class, () -> Tau2Judge.verdict("I think it went well."));
        Tau2Episode unjudged = (Tau2Episode) suite.open(task, "ep-3");
        playGold(unjudged, gated);
        RewardBreakdown open = unjudged.scoreAsync(stopped()).toCompletableFuture().join();
        assertEquals(1.0, open.components().get("judge_needed"), "no judge: the assertions stay ungraded");
        assertEquals(0.0, open.components().get("pass"));
    }

    @Test
    void seed003sTurnCreditGivesPartOfTheRewardForTheChecksThatHeld() {
        Path dir = Tau2GoldTest.shared("retail");
        assumeTrue(dir != null, "../shared/data/tau2 is not beside the repository");
        Tau2Domain domain = Tau2Domain.load(Tau2Domain.Kind.RETAIL, dir);
        Tau2Suite shaped = new Tau2Suite(Tau2Suite.RETAIL, domain, 60, true);
        JsonNode gold = domain.task("0");
        int n = gold.path("evaluation_criteria").path("actions").size();
        Task task = shaped.tasks(Split.TRAIN, 200).stream().filter(t -> t.id().equals("tau2-retail-0")).findFirst().orElseThrow();
        Tau2Episode half = (Tau2Episode) shaped.open(task, "ep-4");
        half.partner().reply(half.partner().greeting()).toCompletableFuture().join();
        JsonNode first = gold.path("evaluation_criteria").path("actions").get(0); // a lookup: one of the n checks, the store unchanged
        half.tools().stream().filter(t -> t.name().equals(first.path("name").asText())).findFirst().orElseThrow()
                .invoke(first.path("arguments"), null).toCompletableFuture().join();
        half.partner().reply("Done.").toCompletableFuture().join();
        RewardBreakdown r = half.score(stopped());
        assertEquals(0.0, r.components().get("pass"));
        assertEquals(1.0 / n, r.components().get("partial"), 1e-12, "actions weigh alone here (the database check weighs 0)");
        assertEquals(0.25 / n, r.total(), 1e-12);

        Tau2Episode all = (Tau2Episode) shaped.open(task, "ep-5");
        playGold(all, gold);
        RewardBreakdown full = all.score(stopped());
        assertEquals(1.25, full.total(), 1e-12, "τ²'s 1 plus 0.25 for every check");
        assertThrows(IllegalArgumentException.class, () -> Tau2Suite.retail(com.typesafe.config.ConfigFactory.parseString(
                "data-dir = \"" + dir + "\", max-turns = 10, reward = dense"), dev.agentswarm.core.policy.ModelClients.NONE));
    }

    /**
     * A call with arguments that do not fit reaches τ²'s tool through the episode's executor, as in τ²: the
     * answer is Python's error and the conversation records a failed call (which τ²'s error limit counts).
     */
    @Test
    void badArgumentsGetTau2sOwnAnswerAndCountAsAFailedCall() {
        Tau2Suite suite = retail();
        Tau2Episode env = (Tau2Episode) suite.open(suite.tasks(Split.HELDOUT, 1).get(0), "ep-b");
        var executor = new dev.agentswarm.core.tool.ToolExecutor(dev.agentswarm.core.tool.ToolRegistry.of(env.tools()), 8000, 5000);
        var missing = executor.execute(new ToolCall("c1", "get_order_details", read("{}")), null).toCompletableFuture().join();
        assertEquals("Error: RetailTools.get_order_details() missing 1 required positional argument: 'order_id'", missing.content());
        var extra = executor.execute(new ToolCall("c2", "get_order_details", read("{\"order_id\": \"#W1\", \"verbose\": true}")), null)
                .toCompletableFuture().join();
        assertEquals("Error: RetailTools.get_order_details() got an unexpected keyword argument 'verbose'", extra.content());
        assertEquals(2, env.conversation().stream().filter(Tau2Message::error).count());
    }

    /**
     * A turn with words and calls is one agent message in τ²'s record, its answers after it in the calls' order
     * (two steps, as τ² counts them); a call of a tool the agent lacks is answered with τ²'s error and counts as
     * failed; a call that never ran (refused by the executor) leaves the record.
     */
    @Test
    void anAgentTurnIsRecordedWholeAsTau2RecordsIt() {
        Tau2Suite suite = retail();
        Tau2Episode env = (Tau2Episode) suite.open(suite.tasks(Split.HELDOUT, 1).get(0), "ep-w");
        int before = env.conversation().size();
        List<ToolCall> calls = List.of(new ToolCall("a", "find_user_id_by_email", read("{\"email\": \"nobody@example.com\"}")),
                new ToolCall("b", "fly_me_to_the_moon", read("{}")), new ToolCall("c", "list_all_product_types", read("{}")),
                new ToolCall("d", "cancel_pending_order", read("{}")));
        env.agentCalls("<not said>", List.of());
        env.agentCalls("Let me look you up.", calls);
        for (String id : List.of("c", "a")) { // answers come in any order; the record keeps the calls' order
            ToolCall call = calls.stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
            env.tools().stream().filter(t -> t.name().equals(call.name())).findFirst().orElseThrow()
                    .invoke(call.arguments(), new dev.agentswarm.core.tool.ToolContext("ep-w", 1, 0, id, 0)).toCompletableFuture().join();
        }
        List<Tau2Message> turn = env.conversation().subList(before, env.conversation().size());
        assertEquals(Tau2Message.text(Tau2Message.Role.ASSISTANT, "<not said>"), turn.get(0), "a turn without calls that ran keeps its words");
        turn = turn.subList(1, turn.size());
        assertEquals(4, turn.size(), turn.toString());
        assertEquals("Let me look you up.", turn.get(0).content());
        assertEquals(List.of("a", "b", "c"), turn.get(0).calls().stream().map(Tau2Message.Call::id).toList(), "d never ran: not recorded");
        assertEquals(List.of("a", "b", "c"), turn.subList(1, 4).stream().map(Tau2Message::callId).toList());
        assertTrue(turn.get(1).error(), "no such user: τ²'s error");
        assertEquals(new Tau2Message(Tau2Message.Role.TOOL, "Error: Tool 'fly_me_to_the_moon' not found.", List.of(), "b",
                Tau2Message.Requestor.ASSISTANT, true), turn.get(2));
        assertFalse(turn.get(3).error());
        assertTrue(Tau2Episode.withinLimits(env.conversation(), 0, 200, 3), "two failed calls so far: a limit of three not reached");
        assertFalse(Tau2Episode.withinLimits(env.conversation(), 0, 200, 2), "both count");
    }

    @Test
    void tenFailedToolCallsEndTheRunForTau2AndEarnNothing() {
        Tau2Suite suite = suite(Tau2Suite.MOCK, Tau2Domain.Kind.MOCK);
        Task task = suite.tasks(Split.HELDOUT, 20).stream().filter(t -> t.id().equals("tau2-mock-update_task_1")).findFirst().orElseThrow();
        for (int failures : new int[] {9, 10}) {
            Tau2Episode env = (Tau2Episode) suite.open(task, "ep-" + failures);
            env.partner().reply(env.partner().greeting()).toCompletableFuture().join();
            var update = env.tools().stream().filter(t -> t.name().equals("update_task_status")).findFirst().orElseThrow();
            for (int i = 0; i < failures; i++) {
                String answer = update.invoke(read("{\"task_id\": \"task_99\", \"status\": \"completed\"}"), null).toCompletableFuture().join();
                assertEquals("Error: Task task_99 not found", answer);
            }
            update.invoke(read("{\"task_id\": \"task_1\", \"status\": \"completed\"}"), null).toCompletableFuture().join();
            env.partner().reply("Done.").toCompletableFuture().join();
            assertEquals(failures < 10 ? 1.0 : 0.0, env.score(stopped()).total(), failures + " failed calls");
        }
        List<Tau2Message> chatty = new java.util.ArrayList<>();
        for (int i = 0; i < 201; i++) chatty.add(Tau2Message.text(i % 2 == 0 ? Tau2Message.Role.ASSISTANT : Tau2Message.Role.USER, "hm"));
        assertFalse(Tau2Episode.withinLimits(chatty, 0, 200, 10), "200 steps end τ²'s run");
        assertTrue(Tau2Episode.withinLimits(chatty.subList(0, 200), 0, 200, 10), "the greeting is not a step");
    }

    private static JsonNode read(String json) {
        try {
            return dev.agentswarm.core.json.Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The gold actions through the episode's tools, between the scripted user's opening and its stop. */
    private static void playGold(Tau2Episode env, JsonNode task) {
        env.partner().reply(env.partner().greeting()).toCompletableFuture().join();
        for (JsonNode a : task.path("evaluation_criteria").path("actions")) {
            env.tools().stream().filter(t -> t.name().equals(a.path("name").asText())).findFirst().orElseThrow()
                    .invoke(a.path("arguments"), null).toCompletableFuture().join();
        }
        env.partner().reply("Done.").toCompletableFuture().join();
    }

    private static Trajectory stopped() {
        return new Trajectory("e", "e", "t", List.of(), List.of(), "Done.", StopReason.USER_STOP, null, new EpisodeStats(1, 0, 0, 0, 0, 0, 1), null);
    }
}
