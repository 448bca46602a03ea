package dev.agentswarm.learner.sft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SftConfigTest {

    private static SftConfig parse(String hocon) {
        return SftConfig.fromConfig(ConfigFactory.parseString(hocon).withFallback(ConfigFactory.defaultReference()));
    }

    @Test
    void readsTheBlockOverTheDefaults() {
        SftConfig c = parse("agentswarm.sft { data = d.jsonl, model { preset = small, layers = 2 }, micro-batch = 4,"
                + " grad-accum = 2, run-dir = runs/x, max-steps = 7 }");
        assertEquals(Path.of("d.jsonl"), c.data());
        assertNull(c.evalData());
        assertNull(c.tokenizer());
        assertEquals(2, c.model().layers());
        assertEquals(256, c.model().dModel());
        assertEquals(8, c.batchSize());
        assertEquals(7, c.totalSteps(1000));
        assertEquals(Path.of("runs/x"), c.runDir());
        assertEquals(0.95, c.beta2());
        assertEquals(13, parse("agentswarm.sft { data = d, epochs = 3, micro-batch = 4 }").totalSteps(17)); // ceil(51/4)
    }

    @Test
    void badValuesNameTheirKey() {
        assertMessage("agentswarm.sft { micro-batch = 1 }", "agentswarm.sft.data is required");
        assertMessage("agentswarm.sft { data = d, micro-batch = 0 }", "agentswarm.sft.micro-batch must be ≥ 1, got 0");
        assertMessage("agentswarm.sft { data = d, min-lr = 1 }", "agentswarm.sft.min-lr must be in [0, lr=");
        assertMessage("agentswarm.sft { data = d, seq-len = 999 }", "agentswarm.sft.seq-len (999) exceeds the model's context (256)");
        assertMessage("agentswarm.sft { data = d, model.preset = huge }", "agentswarm.sft.model: unknown model preset 'huge'");
        assertMessage("agentswarm.sft { data = d, lr = fast }", "lr");
    }

    @Test
    void theRenderedBlockReadsBackTheSame(@TempDir Path dir) throws Exception {
        SftConfig c = parse("agentswarm.sft { data = d.jsonl, eval-data = e.jsonl, seed = 5, run-dir = r }");
        Files.writeString(dir.resolve("sft.conf"), c.render());
        SftConfig back = SftConfig.load(dir.resolve("sft.conf"));
        assertEquals(c.withMaxSteps(3).maxSteps(), 3);
        assertEquals(Path.of("e.jsonl"), back.evalData());
        assertEquals(5, back.seed());
        assertEquals(c.model(), back.model());
    }

    private static void assertMessage(String hocon, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(hocon));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
