package dev.agentswarm.workers;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.agentswarm.core.protocol.WeightsProtocol.WeightsNotice;
import dev.agentswarm.policy.model.CausalLm;
import dev.agentswarm.policy.model.ModelConfig;
import dev.agentswarm.policy.model.ModelWeights;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/**
 * A fetcher takes a notice only from a learner's source and only up to what its model implies: the
 * learner's export of the same model fits under that bound, with no more room than the header's.
 */
class WeightsAcceptanceTest {

    @Test
    void aModelsOwnExportFitsItsBoundWithOnlyTheHeadersRoomToSpare() {
        try (NDManager manager = NDManager.newBaseManager()) {
            CausalLm model = CausalLm.create(ModelConfig.preset("tiny"), manager, 3);
            long bound = WeightsAcceptance.maxBytes(model);
            int exported = ModelWeights.export(model, 12).length;
            int tensors = model.namedParameters().size();
            assertTrue(exported <= bound, exported + " bytes exported, bound " + bound);
            assertTrue(bound - exported <= 64 * 1024 + 1024L * tensors, "the bound is the parameters and a header: " + bound + " for "
                    + exported + " bytes");
        }
    }

    @Test
    void aNoticeIsRefusedForItsSourceOrItsSizeNamingBoth() {
        ActorTestKit kit = ActorTestKit.create("acceptance");
        try {
            var learner = kit.<dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand>createTestProbe().getRef();
            var worker = kit.<dev.agentswarm.core.protocol.WeightsProtocol.SourceCommand>createTestProbe().getRef();
            WeightsAcceptance acceptance = new WeightsAcceptance(ref -> ref.equals(learner), 5000);
            assertNull(acceptance.refusal(WeightsNotice.withoutChecksums(3, 5000, 1000, learner)));
            String foreign = acceptance.refusal(WeightsNotice.withoutChecksums(3, 10, 1000, worker));
            assertTrue(foreign.contains("version 3") && foreign.contains(worker.toString()) && foreign.contains("learner role"), foreign);
            String large = acceptance.refusal(WeightsNotice.withoutChecksums(4, 5001, 1000, learner));
            assertTrue(large.contains("5001 bytes announced") && large.contains("more than the 5000 bytes"), large);
            // Outside a cluster there are no other members: only the system's own actors are the learner's.
            assertTrue(WeightsAcceptance.learnerMembers(kit.system()).test(learner));
        } finally {
            kit.shutdownTestKit();
        }
    }
}
