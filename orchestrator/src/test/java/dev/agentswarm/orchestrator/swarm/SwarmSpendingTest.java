package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SwarmSpendingTest {

    private static final SwarmBudget BUDGET = new SwarmBudget(3, 2, 10, 1_000, Duration.ofSeconds(60), Duration.ofSeconds(5));

    @Test
    void runningTotalsCountOnlyWhatIsNewAndAStaleReportNothing() {
        SwarmSpending s = new SwarmSpending(BUDGET);
        assertArrayEquals(new long[] {2, 50}, s.progress("e", 2, 50));
        assertArrayEquals(new long[] {1, 30}, s.progress("e", 3, 80));
        assertArrayEquals(new long[] {0, 0}, s.progress("e", 2, 60), "a report that arrives late adds nothing");
        assertArrayEquals(new long[] {1, 20}, s.settle("e", 4, 100), "the end adds what the reports had not");
        assertArrayEquals(new long[] {4, 100}, s.settle("e", 4, 100), "once settled, its reports are forgotten");
        assertArrayEquals(new long[] {5, 7}, s.settle("never-reported", 5, 7));
    }

    @Test
    void turnsThenTokensThenSubAgentsAreTheBudgetsPassed() {
        SwarmSpending s = new SwarmSpending(BUDGET);
        assertNull(s.add(3, 9, 999), "three sub-agents of three and a turn left: nothing passed");
        assertEquals(new SwarmSpending.Passed("subagents", "4 sub-agents spawned, over the budget of 3"), s.add(1, 0, 0));
        assertEquals(new SwarmSpending.Passed("tokens", "1000 of 1000 tokens generated"), s.add(0, 0, 1));
        assertEquals(new SwarmSpending.Passed("turns", "10 of 10 policy turns used"), s.add(0, 1, 0));
        assertEquals(4, s.subAgents());
        assertEquals(10, s.turns());
        assertEquals(1_000, s.tokens());
    }

    @Test
    void theFirstBudgetExhaustedStays() {
        SwarmSpending s = new SwarmSpending(BUDGET);
        assertNull(s.exhausted());
        assertTrue(s.exhaust("deadline", "soon"));
        assertFalse(s.exhaust("turns", "all used"));
        assertEquals("deadline", s.exhausted());
        assertEquals("soon", s.exhaustedDetail());
    }

    @Test
    void aResumedSwarmTakesUpWhatItsJournalCounted() {
        SwarmLedger ledger = new SwarmLedger();
        ledger.apply(new SwarmEvent.SwarmStarted("t", "p"));
        ledger.apply(new SwarmEvent.BudgetExhausted("tokens", "all of them"));
        SwarmSpending s = new SwarmSpending(BUDGET);
        s.restore(ledger);
        assertEquals("tokens", s.exhausted());
        assertEquals("all of them", s.exhaustedDetail());
        assertFalse(s.exhaust("turns", "too"));
    }
}
