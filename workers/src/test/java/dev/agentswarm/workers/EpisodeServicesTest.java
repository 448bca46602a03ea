package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.environment.TaskEnvironment;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.EpisodeSpec;
import dev.agentswarm.core.protocol.ToolSpec;
import dev.agentswarm.core.tool.CalculatorTool;
import dev.agentswarm.core.tool.Tool;
import dev.agentswarm.core.tool.ToolContext;
import dev.agentswarm.core.tool.ToolRegistry;
import dev.agentswarm.core.tool.ToolSpecs;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** Setups are shared by the episodes of a spec, and made again when a tool's spec changes (an MCP server's new tool list). */
class EpisodeServicesTest {

    /** A tool whose description changes, as an MCP server's may. */
    private static final class Changing implements Tool {
        volatile ToolSpec spec = ToolSpecs.oneString("lookup", "Looks things up.", "q", "What to look up.");

        @Override
        public ToolSpec spec() {
            return spec;
        }

        @Override
        public CompletionStage<String> invoke(JsonNode arguments, ToolContext context) {
            return CompletableFuture.completedFuture("found");
        }
    }

    @Test
    void aToolWhoseSpecChangedGetsNewEpisodesANewSetup() {
        Changing lookup = new Changing();
        Policy policy = request -> CompletableFuture.failedFuture(new UnsupportedOperationException());
        EpisodeServices services = new EpisodeServices(policy, ToolRegistry.of(new CalculatorTool(), lookup));
        EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode")).withTools(List.of("calculator", "lookup"));
        EpisodeSetup first = services.setupFor(spec);
        assertSame(first, services.setupFor(spec), "one setup per spec");
        assertSame(first, services.setupFor(spec.withTools(List.of("calculator", "lookup"))), "an equal spec shares it too");
        assertTrue(first.systemMessage.content().contains("Looks things up."));

        lookup.spec = ToolSpecs.oneString("lookup", "Looks things up in the new index.", "q", "What to look up.");
        EpisodeSetup second = services.setupFor(spec);
        assertNotSame(first, second);
        assertTrue(second.systemMessage.content().contains("Looks things up in the new index."), second.systemMessage.content());
        assertSame(second.toolSpecs.get(1), lookup.spec);
        assertSame(second, services.setupFor(spec.withTools(List.of("calculator", "lookup"))));
    }

    /** A task's environment that brings tools and instructions of its own. */
    private static TaskEnvironment bringing(List<Tool> tools, String instructions) {
        return new TaskEnvironment() {
            @Override
            public List<Tool> tools() {
                return tools;
            }

            @Override
            public String systemPrompt() {
                return instructions;
            }

            @Override
            public RewardBreakdown score(Trajectory trajectory) {
                return RewardBreakdown.NONE;
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void aTasksOwnToolsAndInstructionsJoinTheSpecsForThatEpisodeAlone() {
        Policy policy = request -> CompletableFuture.failedFuture(new UnsupportedOperationException());
        EpisodeServices services = new EpisodeServices(policy, ToolRegistry.of(new CalculatorTool()));
        EpisodeSpec spec = EpisodeSpec.fromConfig(ConfigFactory.load().getConfig("agentswarm.episode"))
                .withTools(List.of("calculator")).withSystemPrompt("Be brief.");
        Changing lookup = new Changing();
        EpisodeSetup own = services.setupFor(spec, bringing(List.of(lookup), "You answer for the bank."));
        assertEquals(List.of("calculator", "lookup"), own.toolSpecs.stream().map(ToolSpec::name).toList());
        String system = own.systemMessage.content();
        assertTrue(system.startsWith("You answer for the bank.\n\nBe brief."), system);
        assertTrue(system.contains("Looks things up."), "the task's tool is offered: " + system);
        assertEquals("found", own.executor.execute(new dev.agentswarm.core.protocol.ToolCall("c", "lookup",
                dev.agentswarm.core.json.Json.MAPPER.createObjectNode().put("q", "x")), null).toCompletableFuture().join().content());

        EpisodeSetup shared = services.setupFor(spec);
        assertSame(shared, services.setupFor(spec, bringing(List.of(), null)), "a task that brings nothing shares the spec's setup");
        assertSame(shared, services.setupFor(spec, null));
        assertEquals(List.of("calculator"), shared.toolSpecs.stream().map(ToolSpec::name).toList());

        IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
                () -> services.setupFor(spec, bringing(List.of(new CalculatorTool()), null)));
        assertTrue(clash.getMessage().contains("'calculator'"), clash.getMessage());
    }
}
