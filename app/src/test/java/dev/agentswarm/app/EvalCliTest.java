package dev.agentswarm.app;

import static dev.agentswarm.app.CliTest.swarm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** swarm eval end to end, in-process: the oracle through the runtime, the tables, the run folder, demonstrations. */
class EvalCliTest {

    @Test
    void theOracleEvaluationWritesTablesTrajectoriesAndDemonstrations(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run");
        Path demos = dir.resolve("demos.jsonl");
        CliTest.Result r = swarm("eval", "--suite", "plugins", "--policy", "oracle", "--tasks", "6", "--samples", "2",
                "--out", out.toString(), "--demonstrations", demos.toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = r.json();
        assertEquals(6, j.get("tasks").asInt());
        assertEquals(12, j.get("episodes").asInt());
        assertEquals(0.95, j.get("means").get("plan").asDouble(), 1e-9);
        assertEquals(1.0, j.get("pass_hat_k").get("2").asDouble(), 1e-9);
        assertTrue(r.out().contains("| all |"), r.out());
        assertEquals(12, Files.readAllLines(out.resolve("trajectories.jsonl")).size());
        assertTrue(Files.readString(out.resolve("eval.md")).contains("pass^k"));
        List<String> lines = Files.readAllLines(demos);
        assertEquals(12, lines.size(), "every passing episode is a demonstration");
        JsonNode first = Json.parse(lines.get(0)).get("messages");
        assertEquals("system", first.get(0).get("role").asText());
        assertTrue(first.get(first.size() - 1).get("content").asText().contains("\"plugins\""), "the plan as the model wrote it");
    }

    @Test
    void theCodeSuiteGradesEachSolutionInTheSandboxThroughTheRuntime(@TempDir Path dir) throws Exception {
        CliTest.Result r = swarm("eval", "--suite", "code", "--policy", "oracle", "--tasks", "4", "--samples", "2",
                "--out", dir.resolve("run").toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = r.json();
        assertEquals(8, j.get("episodes").asInt());
        assertEquals(1.0, j.get("means").get("pass").asDouble(), 1e-9, r.out());
        assertEquals(1.0, j.get("means").get("tests_passed").asDouble(), 1e-9);
        assertEquals(1.0, j.get("means").get("tool_call").asDouble(), 1e-9, "every demonstration ran its code first");
    }

    @Test
    void aTau2SuiteRunsConversationsWithAUserAndAJudgeServedOverTheOpenAiApi(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("../../shared/data/tau2/retail"))
                || Files.isDirectory(Path.of("../shared/data/tau2/retail")), "../shared/data/tau2 is not beside the repository");
        String data = Files.isDirectory(Path.of("../../shared/data/tau2/retail")) ? "../../shared/data/tau2/retail" : "../shared/data/tau2/retail";
        Path conf = dir.resolve("tau2.conf");
        Files.writeString(conf, "agentswarm.environments.tau2-retail.data-dir = \"" + data + "\"\n");
        java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer server = standIn(asked, body -> {
            String text = body.contains("expectedOutcomes")
                    ? "{\"results\": [{\"expectedOutcome\": \"x\", \"reasoning\": \"y\", \"metExpectation\": true}]}"
                    : body.contains("How can I help") && !body.contains("Done.") ? "I would like some help with my order." : "Thank you! ###STOP###";
            return Json.object().put("role", "assistant").put("content", text);
        });
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
            // The judge as every node's configuration names it, the user from the command line; train task 2 is gated by the judge.
            Path judged = dir.resolve("judged.conf");
            Files.writeString(judged, Files.readString(conf) + "agentswarm.environments.tau2-retail.judge { endpoint = \"" + url + "\", model = judge }\n");
            CliTest.Result r = swarm("eval", "--suite", "tau2-retail", "--split", "train", "--policy", "oracle", "--tasks", "3", "--samples", "2", "--config", judged.toString(),
                    "--user-endpoint", url, "--user-model", "user-sim", "--out", dir.resolve("run").toString(), "--json");
            assertEquals(0, r.exit(), r.err());
            JsonNode j = r.json();
            assertEquals(6, j.get("episodes").asInt());
            assertEquals(1.0, j.get("means").get("db").asDouble(), 1e-9, r.out());
            assertEquals(1.0, j.get("means").get("pass").asDouble(), 1e-9, "the judge passed what it was asked: " + r.out());
            assertTrue(asked.stream().anyMatch(b -> b.contains("user-sim") && b.contains("<scenario>")), "the user model got its scenario");
            assertTrue(asked.stream().anyMatch(b -> b.contains("\"judge\"") && b.contains("expectedOutcomes")), "the configured judge graded");
            assertTrue(j.get("facts").get("answered").asDouble() == 1.0, "every conversation was closed by the user");
        } finally {
            server.stop(0);
        }
        CliTest.Result half = swarm("eval", "--suite", "tau2-retail", "--policy", "oracle", "--config", conf.toString(), "--user-endpoint",
                "http://127.0.0.1:9/v1", "--out", dir.toString());
        assertNotEquals(0, half.exit());
        assertTrue(half.err().contains("--user-endpoint and --user-model go together"), half.err());
        CliTest.Result other = swarm("eval", "--suite", "arithmetic", "--policy", "oracle", "--judge-endpoint", "http://127.0.0.1:9/v1",
                "--judge-model", "j", "--out", dir.toString());
        assertNotEquals(0, other.exit());
        assertTrue(other.err().contains("τ² suites only"), other.err());
    }

    /**
     * A telecom customer played by a model behind the OpenAI API: offered the phone's tools, its tool call (JSON
     * text arguments, as servers send them) runs on the phone and the answer comes back to it as a tool message.
     */
    @Test
    void aModelPlayedTelecomUserCallsItsPhoneToolsOverTheOpenAiApi(@TempDir Path dir) throws Exception {
        String data = Files.isDirectory(Path.of("../../shared/data/tau2/telecom")) ? "../../shared/data/tau2/telecom" : "../shared/data/tau2/telecom";
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of(data)), "../shared/data/tau2 is not beside the repository");
        Path conf = dir.resolve("telecom.conf");
        Files.writeString(conf, "agentswarm.environments.tau2-telecom.data-dir = \"" + data + "\"\n");
        java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer server = standIn(asked, body -> {
            JsonNode messages;
            try {
                messages = Json.parse(body).get("messages");
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new java.io.UncheckedIOException(e);
            }
            JsonNode last = messages.get(messages.size() - 1);
            com.fasterxml.jackson.databind.node.ObjectNode m = Json.object().put("role", "assistant");
            if ("tool".equals(last.path("role").asText())) return m.put("content", "My status bar shows it. Thanks! ###STOP###");
            if (messages.size() == 2) return m.put("content", "My phone has no service.");
            m.putNull("content");
            m.putArray("tool_calls").addObject().put("id", "u1").put("type", "function").putObject("function")
                    .put("name", "check_status_bar").put("arguments", "{}");
            return m;
        });
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
            CliTest.Result r = swarm("eval", "--suite", "tau2-telecom", "--policy", "oracle", "--tasks", "2", "--config", conf.toString(),
                    "--user-endpoint", url, "--user-model", "phone-user", "--out", dir.resolve("run").toString(), "--json");
            assertEquals(0, r.exit(), r.err());
            assertEquals(1.0, r.json().get("facts").get("answered").asDouble(), "every conversation was closed by the user: " + r.out());
            assertTrue(asked.stream().anyMatch(b -> b.contains("\"check_status_bar\"") && b.contains("\"tools\"")), "the phone's tools are offered");
            assertTrue(asked.stream().anyMatch(b -> b.contains("\"tool_call_id\":\"u1\"") && b.contains("Status Bar:")),
                    "the call ran on the phone and its answer went back to the user model");
        } finally {
            server.stop(0);
        }
    }

    /** An OpenAI-compatible stand-in: every request body is kept, and answered with the message {@code reply} makes of it. */
    private static com.sun.net.httpserver.HttpServer standIn(java.util.List<String> asked,
                                                              java.util.function.Function<String, JsonNode> reply) throws java.io.IOException {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            asked.add(body);
            com.fasterxml.jackson.databind.node.ObjectNode response = Json.object().put("id", "c").put("object", "chat.completion");
            JsonNode message = reply.apply(body);
            response.putArray("choices").addObject().put("index", 0).put("finish_reason", message.has("tool_calls") ? "tool_calls" : "stop")
                    .set("message", message);
            response.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
            byte[] answer = Json.write(response).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return server;
    }

    @Test
    void badInputIsRefusedClearly(@TempDir Path dir) {
        CliTest.Result unknown = swarm("eval", "--suite", "chess", "--policy", "oracle", "--out", dir.toString());
        assertNotEquals(0, unknown.exit());
        assertTrue(unknown.err().contains("unknown suite") && unknown.err().contains("arithmetic"), unknown.err());
        CliTest.Result split = swarm("eval", "--suite", "arithmetic", "--split", "dev", "--policy", "oracle", "--out", dir.toString());
        assertNotEquals(0, split.exit());
        assertTrue(split.err().contains("train or heldout"), split.err());
        CliTest.Result oracleElsewhere = swarm("run", "2+2?", "--policy", "oracle");
        assertNotEquals(0, oracleElsewhere.exit());
        assertTrue(oracleElsewhere.err().contains("swarm eval"), oracleElsewhere.err());
    }
}
