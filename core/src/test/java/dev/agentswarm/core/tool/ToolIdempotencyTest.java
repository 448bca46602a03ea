package dev.agentswarm.core.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.protocol.ToolStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** Which calls may run again after a crash: what tools declare, and what a node's configuration overrides. */
class ToolIdempotencyTest {

    /** A tool that says nothing about idempotency, and remembers whom it released. */
    private static final class Mailer implements Tool {
        final List<String> released = new ArrayList<>();

        @Override
        public ToolSpec spec() {
            return new ToolSpec("send_mail", "sends a mail", Json.object().put("type", "object"));
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            return CompletableFuture.completedFuture("sent");
        }

        @Override
        public void release(String episodeId) {
            released.add(episodeId);
        }
    }

    private static ToolCall call(String name) {
        return new ToolCall("c1", name, Json.object().put("expression", "1+1").put("answer", "a"));
    }

    @Test
    void aToolThatSaysNothingIsNotIdempotentAndTheBuiltInsSayWhatTheyAre() {
        ToolExecutor ex = new ToolExecutor(ToolRegistry.of(new Mailer(), new CalculatorTool(), new FinishTool(),
                new SpawnSubAgentsTool()), 1000, 1000);
        assertFalse(ex.idempotent(call("send_mail")), "the safe default: not run twice unseen");
        assertTrue(ex.idempotent(call("calculator")));
        assertTrue(ex.idempotent(call("finish")));
        assertTrue(ex.idempotent(call("spawn_subagents")), "the swarm attaches a repeated call to its journaled round");
        assertTrue(ex.idempotent(call("no_such_tool")), "a call refused without running anything may be refused again");
        assertTrue(ex.idempotent(new ToolCall("c1", "send_mail", Json.MAPPER.getNodeFactory().textNode("x"))),
                "arguments that are not an object run nothing");
    }

    @Test
    void theNodesConfigurationOverridesWhatAToolDeclaresAndStillReleasesThroughIt() {
        Mailer mailer = new Mailer();
        ToolRegistry tools = ToolRegistry.of(mailer, new CalculatorTool()).withIdempotency(ConfigFactory.parseString(
                "send_mail { idempotent = true }, calculator { idempotent = false }"));
        ToolExecutor ex = new ToolExecutor(tools, 1000, 1000);
        assertTrue(ex.idempotent(call("send_mail")));
        assertFalse(ex.idempotent(call("calculator")));
        ToolCall add = new ToolCall("c2", "calculator", Json.object().put("expression", "1+1"));
        assertEquals("2", ex.execute(add, null).toCompletableFuture().join().content(), "the tool still works");
        tools.release("ep-1");
        assertEquals(List.of("ep-1"), mailer.released);
        assertEquals(List.of("send_mail", "calculator"), List.copyOf(tools.names()), "the order the prompt lists them in");
    }

    @Test
    void aBadOverrideIsRefusedNamingItsKey() {
        ToolRegistry tools = ToolRegistry.of(new Mailer());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> tools.withIdempotency(ConfigFactory.parseString("send_mails { idempotent = false }")));
        assertTrue(unknown.getMessage().contains("agentswarm.tools.send_mails") && unknown.getMessage().contains("send_mail]"),
                unknown.getMessage());
        IllegalArgumentException notBoolean = assertThrows(IllegalArgumentException.class,
                () -> tools.withIdempotency(ConfigFactory.parseString("send_mail { idempotent = maybe }")));
        assertTrue(notBoolean.getMessage().contains("agentswarm.tools.send_mail.idempotent must be true or false"),
                notBoolean.getMessage());
        IllegalArgumentException field = assertThrows(IllegalArgumentException.class,
                () -> tools.withIdempotency(ConfigFactory.parseString("send_mail { idempotant = false }")));
        assertTrue(field.getMessage().contains("agentswarm.tools.send_mail.idempotant is unknown"), field.getMessage());
    }

    @Test
    void anInterruptedCallSaysItsEffectIsUnknown() {
        ToolResult r = ToolExecutor.interrupted(new ToolCall("c7", "send_mail", Json.object()));
        assertEquals("c7", r.callId());
        assertEquals(ToolStatus.INTERRUPTED, r.status());
        assertFalse(r.ok());
        assertTrue(r.content().contains("unknown") && r.content().contains("not run again"), r.content());
    }
}
