package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import org.junit.jupiter.api.Test;

/**
 * The largest version a node's fetcher takes is what its model implies: the learner's export of the
 * same model fits under it, with no more room than the header's allowance.
 */
class WeightsBoundTest {

    @Test
    void aModelsOwnExportFitsItsBoundWithOnlyTheHeadersRoomToSpare() {
        try (NDManager manager = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), manager, 3);
            long bound = EmbeddedPolicy.maxWeightsBytes(model);
            int exported = ModelWeights.export(model, 12).length;
            int tensors = model.namedParameters().size();
            assertTrue(exported <= bound, exported + " bytes exported, bound " + bound);
            assertTrue(bound - exported <= 64 * 1024 + 1024L * tensors, "the bound is the parameters and a header: " + bound + " for "
                    + exported + " bytes");
        }
    }
}
