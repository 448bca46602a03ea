package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.agentswarm.core.policy.Policy;
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
}
