package dev.agentswarm.orchestrator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.agentswarm.core.protocol.WorkerProtocol;
import java.util.List;
import org.junit.jupiter.api.Test;

class EpisodePlacementsTest {

    @Test
    void aNodeThatLeavesTakesOnlyItsOwnEpisodes() {
        EpisodePlacements p = new EpisodePlacements();
        p.sent("a", 100);
        p.sent("b", 100);
        p.sent("c", 100);
        assertNull(p.receipt(new WorkerProtocol.Accepted("a", "n1")));
        assertNull(p.receipt(new WorkerProtocol.Accepted("b", "n2")));
        assertNull(p.receipt(new WorkerProtocol.Accepted("c", "n1")));
        assertEquals(List.of("a", "c"), p.lostWith("n1").stream().sorted().toList());
        assertEquals(List.of(), p.lostWith("n1"), "lost once: they are no longer placed there");
        assertEquals("n2", p.nodeOf("b"));
    }

    @Test
    void anUnacknowledgedEpisodeIsDueAgainAfterItsDeadlineUnlessAWorkerAccepts() {
        EpisodePlacements p = new EpisodePlacements();
        p.sent("a", 1_000);
        p.sent("b", 3_000);
        assertEquals(List.of(), p.unacknowledged(999));
        assertEquals(List.of("a"), p.unacknowledged(1_000));
        p.accepted("a", "n1");
        assertEquals(List.of(), p.unacknowledged(2_000), "a receipt came");
        assertEquals(List.of("b"), p.unacknowledged(5_000));
        p.sent("b", 9_000); // sent again: due later
        assertEquals(List.of(), p.unacknowledged(5_000));
    }

    @Test
    void aReleasedEpisodeIsToBeSentAgainAndAnsweredOnesAreForgotten() {
        EpisodePlacements p = new EpisodePlacements();
        p.sent("a", 100);
        p.accepted("a", "n1");
        assertEquals("a", p.receipt(new WorkerProtocol.Released("a", "hand-off")));
        p.forget("a");
        assertEquals(0, p.size());
        p.accepted("a", "n1"); // a late receipt of an episode already answered
        assertEquals(0, p.size(), "a receipt does not bring back an episode no longer tracked");
        assertEquals(List.of(), p.lostWith("n1"));
    }

    @Test
    void receiptsAreAskedForOnlyWhileAnotherMemberCouldRunOrLoseAnEpisode() {
        EpisodePlacements p = new EpisodePlacements();
        assertEquals(true, p.tracking(), "no membership known (not a cluster member): receipts");
        p.members(java.util.Set.of("n1"));
        assertEquals(false, p.tracking(), "alone: this node's workers die with the requester");
        p.members(java.util.Set.of("n1", "n2"));
        assertEquals(true, p.tracking());
        p.sent("a", 100);
        p.accepted("a", "n2");
        assertEquals(List.of(new EpisodePlacements.Resend("a", 1_000 + EpisodePlacements.LOST_RESEND_ACK_MILLIS)),
                p.removed("n2", 1_000, org.slf4j.LoggerFactory.getLogger(getClass())), "due soon: sharding may not know yet");
        assertEquals(false, p.tracking(), "alone again");
    }

    @Test
    void aCancelledAnswerWithoutTurnsThatSaysSendAgainIsAGiveBack() {
        var given = dev.agentswarm.core.protocol.Trajectory.notRun("e", "g", "t", dev.agentswarm.core.protocol.StopReason.CANCELLED,
                "the worker is handing off; " + WorkerProtocol.GIVEN_BACK);
        assertEquals(true, EpisodePlacements.givenBack(given));
        var cancelled = dev.agentswarm.core.protocol.Trajectory.notRun("e", "g", "t", dev.agentswarm.core.protocol.StopReason.CANCELLED,
                "cancelled: parent budget exhausted");
        assertEquals(false, EpisodePlacements.givenBack(cancelled));
    }
}
