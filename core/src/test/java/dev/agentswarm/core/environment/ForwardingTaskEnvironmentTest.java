package dev.agentswarm.core.environment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.protocol.RewardBreakdown;
import dev.agentswarm.core.protocol.Trajectory;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class ForwardingTaskEnvironmentTest {

    /** A method TaskEnvironment gains must be forwarded too, or wrapped environments silently lose it. */
    @Test
    void everyMethodOfTheInterfaceIsForwarded() throws Exception {
        for (Method m : TaskEnvironment.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            Method own = ForwardingTaskEnvironment.class.getMethod(m.getName(), m.getParameterTypes());
            assertEquals(ForwardingTaskEnvironment.class, own.getDeclaringClass(), m.getName() + " is not forwarded");
        }
    }

    @Test
    void whatTheWrappedEnvironmentSaysComesThrough() {
        ConversationPartner partner = new ConversationPartner() {
            @Override
            public String greeting() {
                return "Hi";
            }

            @Override
            public CompletionStage<Reply> reply(String agentMessage) {
                return CompletableFuture.completedFuture(new Reply("bye", true));
            }
        };
        boolean[] closed = {false};
        TaskEnvironment inner = new TaskEnvironment() {
            @Override
            public ConversationPartner partner() {
                return partner;
            }

            @Override
            public boolean callsAreTheAnswer() {
                return true;
            }

            @Override
            public String systemPrompt() {
                return "own";
            }

            @Override
            public RewardBreakdown score(Trajectory trajectory) {
                return RewardBreakdown.NONE;
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        };
        TaskEnvironment outer = new ForwardingTaskEnvironment(inner) {};
        assertSame(partner, outer.partner());
        assertTrue(outer.callsAreTheAnswer());
        assertEquals("own", outer.systemPrompt());
        outer.close();
        assertTrue(closed[0]);
    }
}
