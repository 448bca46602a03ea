package dev.agentswarm.testkit;

import static dev.agentswarm.testkit.TrajectoryAssert.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.InfraFailure;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.FinishTool;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.environments.mcp.McpServers;
import dev.agentswarm.environments.mcp.McpSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Episodes whose tools are real MCP servers (server-everything and server-filesystem from npm, and a
 * misbehaving one): scripted policies list and call them, and a server that crashes, hangs or writes
 * garbage is an observation while the episode and the node go on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LogCapturingExtension.class)
class McpEpisodeTest {

    private final ActorTestKit kit = ActorTestKit.create("mcp-episodes", EpisodeHarness.TEST_CONFIG);

    @AfterAll
    void stop() {
        kit.shutdownTestKit();
    }

    @BeforeEach
    void fixtures() {
        assumeTrue(EcosystemFixtures.available() || EcosystemFixtures.required(), "the MCP servers from npm are not installed (bin/test installs them)");
    }

    private static McpServers servers(String blocks) {
        var cfg = ConfigFactory.parseString("agentswarm.mcp.servers {\n" + blocks + "\n}").withFallback(ConfigFactory.load()).resolve();
        return McpServers.start(McpSettings.fromConfig(cfg), new SimpleMeterRegistry());
    }

    private EpisodeHarness harness(ScriptedPolicy policy, McpServers mcp) {
        ToolRegistry tools = ToolRegistry.of(new CalculatorTool(), new FinishTool());
        for (var t : mcp.tools()) tools = tools.plus(t);
        return EpisodeHarness.on(kit, policy, tools);
    }

    static String call(String tool, Object args) {
        return "<tool_call>\n{\"name\": \"" + tool + "\", \"arguments\": " + Json.write(args) + "}\n</tool_call>";
    }

    private static List<ToolResult> results(Trajectory t) {
        return t.turns().stream().flatMap(turn -> turn.toolResults().stream()).toList();
    }

    @Test
    void aScriptedEpisodeListsAndCallsServerEverythingAndServerFilesystem(@TempDir Path dir) throws Exception {
        Path root = dir.toRealPath();
        Path file = root.resolve("answer.txt");
        try (McpServers mcp = servers("everything { command = " + EcosystemFixtures.hocon(EcosystemFixtures.everything("stdio")) + " }\n"
                + "fs { command = " + EcosystemFixtures.hocon(EcosystemFixtures.filesystem(root)) + " }")) {
            var policy = ScriptedPolicy.replies(
                    call("everything.echo", Map.of("message", "hi")) + "\n" + call("everything.get-sum", Map.of("a", 40, "b", 2)),
                    call("everything.get-structured-content", Map.of("location", "New York")) + "\n" + call("everything.get-tiny-image", Map.of()),
                    call("fs.write_file", Map.of("path", file.toString(), "content", "forty-two")),
                    call("fs.read_text_file", Map.of("path", file.toString())),
                    call("everything.get-sum", Map.of("a", "forty", "b", 2)),
                    "The answer is 42");
            Trajectory t = harness(policy, mcp).run(Task.of("t1", "Add 40 and 2, and keep the result in answer.txt"));
            assertThat(t).stoppedBecause(StopReason.FINAL_ANSWER).hasFinalAnswer("The answer is 42").hasToolCalls(7).hasToolSuccesses(6)
                    .observed("Echo: hi").observed("The sum of 40 and 2 is 42.")
                    .observed("{\"temperature\":33,\"conditions\":\"Cloudy\",\"humidity\":82}")
                    .observed("[image: image/png, ").observed("forty-two")
                    // Arguments are checked against the server's schema before anything is sent.
                    .hasToolResult(ToolStatus.INVALID_ARGUMENTS, "arguments.a: expected number, got string \"forty\"");
            assertEquals("forty-two", Files.readString(file));
            assertTrue(t.prompt().get(0).content().contains("\"name\": \"everything.echo\""), "the system prompt lists the MCP tools");
            assertTrue(t.prompt().get(0).content().contains("\"name\": \"fs.read_text_file\""));
        }
    }

    @Test
    void aServerKilledMidCallEndsTheEpisodeAsInfrastructureAndTheNextOneFindsItRestarted() throws Exception {
        try (McpServers mcp = servers("everything { command = " + EcosystemFixtures.hocon(EcosystemFixtures.everything("stdio"))
                + ", restart-backoff { min = 200ms, max = 2s } }")) {
            ProcessHandle first = mcp.process("everything");
            AtomicReference<String> killed = new AtomicReference<>();
            // Turn 1 starts a 20 s operation; the server is killed while it runs; turn 2 comes after the restart.
            var policy = ScriptedPolicy.texts(req -> switch (req.turn()) {
                case 1 -> {
                    Thread killer = new Thread(() -> {
                        try {
                            Thread.sleep(800);
                        } catch (InterruptedException e) {
                            return;
                        }
                        first.descendants().forEach(ProcessHandle::destroyForcibly);
                        first.destroyForcibly();
                        killed.set("yes");
                    });
                    killer.start();
                    yield call("everything.trigger-long-running-operation", Map.of("duration", 20, "steps", 4));
                }
                case 2 -> call("everything.echo", Map.of("message", "still here"));
                default -> "done";
            }).withLatency(Duration.ofMillis(1500));
            long t0 = System.nanoTime();
            Trajectory t = harness(policy, mcp).run(Task.of("t2", "Run the long operation"));
            assertEquals("yes", killed.get());
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(15).toNanos(), "the crash did not wait for the call's timeout");
            // Not the model's doing: the episode ends as an infrastructure failure, never trained on as its answer.
            assertThat(t).stoppedBecause(StopReason.TOOL_UNAVAILABLE).hasToolCalls(1).hasToolSuccesses(0)
                    .hasToolResult(ToolStatus.SERVER_DOWN, "MCP server 'everything' exited (killed by SIGKILL");
            assertEquals(InfraFailure.MCP_SERVER_DOWN, t.infraFailure());
            Trajectory next = harness(ScriptedPolicy.replies(call("everything.echo", Map.of("message", "still here")), "done")
                    .withLatency(Duration.ofMillis(1500)), mcp).run(Task.of("t2", "Run the long operation"));
            assertThat(next).stoppedBecause(StopReason.FINAL_ANSWER).observed("Echo: still here");
            assertNotEquals(first.pid(), mcp.process("everything").pid());
        }
    }

    @Test
    void garbageEndsTheEpisodeAsInfrastructureSilenceIsATimeoutAndTheNodeGoesOn() throws Exception {
        try (McpServers mcp = servers("garbage { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("garbage-call")) + " }\n"
                + "hang { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("hang-call")) + ", ping-timeout = 300ms }\n"
                + "well { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("well")) + " }")) {
            var policy = ScriptedPolicy.replies(
                    call("garbage.echo", Map.of("text", "a")) + "\n" + call("hang.echo", Map.of("text", "b")) + "\n"
                            + call("well.echo", Map.of("text", "c")),
                    call("calculator", Map.of("expression", "6*7")),
                    "42");
            EpisodeHarness h = harness(policy, mcp);
            long t0 = System.nanoTime();
            var spec = h.spec();
            spec = spec.withLimits(spec.maxTurns(), spec.tokenBudget(), spec.contextBudget(), spec.deadlineMillis(), 1000);
            Trajectory t = h.run(Task.of("t3", "Ask the servers"), spec);
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
            // A server writing garbage is down: the turn is kept, the episode ends as an infrastructure failure.
            assertThat(t).stoppedBecause(StopReason.TOOL_UNAVAILABLE).hasToolCalls(3).hasToolSuccesses(1)
                    .hasToolResult(ToolStatus.SERVER_DOWN, "MCP server 'garbage' wrote to stdout what is not a JSON-RPC message: \"<html>502 Bad Gateway</html>\"")
                    .hasToolResult(ToolStatus.TIMEOUT, "tool 'hang.echo' timed out after 1000 ms")
                    .observed("c");
            assertEquals(InfraFailure.MCP_SERVER_DOWN, t.infraFailure());
            // The node goes on: another episode on the same servers (the broken ones restart meanwhile).
            Trajectory again = harness(ScriptedPolicy.replies(call("well.echo", Map.of("text", "c")), "c"), mcp)
                    .run(Task.of("t4", "Again"));
            assertThat(again).hasToolResult(ToolStatus.OK, "c");
        }
    }

    @Test
    void perEpisodeServersGiveTwoEpisodesTwoProcessesStoppedWhenEachEnds() throws Exception {
        try (McpServers mcp = servers("counter { command = " + EcosystemFixtures.hocon(EcosystemFixtures.misbehaving("well"))
                + ", per-episode = true }")) {
            var policy = ScriptedPolicy.replies(
                    call("counter.increment", Map.of()),
                    call("counter.increment", Map.of()) + "\n" + call("counter.pid", Map.of()),
                    "done").withLatency(Duration.ofMillis(50));
            EpisodeHarness h = harness(policy, mcp);
            List<Trajectory> ts = h.runAll(List.of(Task.of("a", "count"), Task.of("b", "count")), h.spec());
            java.util.Set<String> pids = new java.util.HashSet<>();
            for (Trajectory t : ts) {
                List<ToolResult> rs = results(t);
                assertEquals(List.of("1", "2"), rs.stream().filter(r -> r.name().equals("counter.increment")).map(ToolResult::content).toList(),
                        "each episode counts in its own process");
                pids.add(rs.stream().filter(r -> r.name().equals("counter.pid")).findFirst().orElseThrow().content());
            }
            assertEquals(2, pids.size(), "two episodes, two processes: " + pids);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (mcp.episodeInstances("counter") > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(0, mcp.episodeInstances("counter"), "released at the episodes' end");
            for (String pid : pids) {
                var p = ProcessHandle.of(Long.parseLong(pid));
                deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (p.isPresent() && p.get().isAlive() && !zombie(p.get()) && System.nanoTime() < deadline) Thread.sleep(20);
                assertTrue(p.isEmpty() || !p.get().isAlive() || zombie(p.get()), "process " + pid + " stopped");
            }
        }
    }

    private static boolean zombie(ProcessHandle p) {
        try {
            String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.io.IOException e) {
            return true;
        }
    }

}
