package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.Trajectory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SwarmTraceEventsTest {

    private static List<String> fields(JsonNode e) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = e.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }

    @Test
    void anAcceptedPlanNamesEachSubTasksAgentStagesAndJoin() {
        try (SwarmTrace trace = SwarmTrace.inMemory()) {
            SubTask a = new SubTask("a", "find it", SubAgentMode.SEARCH, List.of(), List.of());
            SubTask b = new SubTask("b", "use it", SubAgentMode.CODING, List.of(), List.of("a"));
            Plan plan = new Plan(List.of(a, b), List.of(List.of("a"), List.of("b")));
            Map<String, String> agents = new LinkedHashMap<>();
            agents.put("a", "root/a@2");
            agents.put("b", "root/b");
            new SwarmTraceEvents(trace).planAccepted("root", 2, 5, plan, agents);

            ObjectNode e = trace.events().get(0);
            assertEquals(List.of("t_ms", "agent", "kind", "accepted", "round", "turn", "subtasks", "stages", "join"), fields(e));
            assertEquals("plan", e.get("kind").asText());
            assertTrue(e.get("accepted").asBoolean());
            assertEquals("root/a@2", e.get("subtasks").get(0).get("agent").asText(), "the agent path given, not one made up");
            assertEquals("search", e.get("subtasks").get(0).get("mode").asText());
            assertEquals("a", e.get("subtasks").get(1).get("depends_on").get(0).asText());
            assertEquals("[[\"a\"],[\"b\"]]", Json.write(e.get("stages")));
            assertEquals(Join.ALL.describe(), e.get("join").asText());
        }
    }

    @Test
    void aRefusedPlanCarriesTheObservationAndNoSubTasks() {
        try (SwarmTrace trace = SwarmTrace.inMemory()) {
            new SwarmTraceEvents(trace).planRefused("root/c", 1, 3, "no sub-tasks");
            ObjectNode e = trace.events().get(0);
            assertEquals(List.of("t_ms", "agent", "kind", "accepted", "round", "turn", "observation"), fields(e));
            assertEquals(false, e.get("accepted").asBoolean());
            assertEquals("no sub-tasks", e.get("observation").asText());
        }
    }

    @Test
    void anOrchestratorsEndSaysDoneCancelledOrFailedFromItsAnswerAndStopReason() {
        try (SwarmTrace trace = SwarmTrace.inMemory()) {
            SwarmTraceEvents events = new SwarmTraceEvents(trace);
            Trajectory cancelled = Trajectory.notRun("r:root", "r", "t", StopReason.CANCELLED, "stop");
            Trajectory crashed = Trajectory.notRun("r:root", "r", "t", StopReason.CRASHED, "boom");
            events.orchestratorFinished("root", cancelled, null);
            events.orchestratorFinished("root", crashed, null);
            events.orchestratorFinished("root", crashed, "42");
            List<ObjectNode> got = trace.events();
            assertEquals(List.of("cancelled", "failed", "done"), got.stream().map(e -> e.get("state").asText()).toList());
            assertEquals(List.of("t_ms", "agent", "kind", "state", "stop_reason", "answer", "error", "turns", "tokens", "attempt"),
                    fields(got.get(0)));
            assertTrue(got.get(0).get("answer").isNull());
            assertEquals("CRASHED", got.get(1).get("stop_reason").asText());
            assertTrue(got.get(1).get("turns").isInt(), "counts stay ints, as readers compare them");
        }
    }

    @Test
    void theRootsAgentStartedHasANullParentAndANestedOneItsParent() {
        try (SwarmTrace trace = SwarmTrace.inMemory()) {
            SwarmTraceEvents events = new SwarmTraceEvents(trace);
            events.orchestratorStarted("root", null, "task", "r:root");
            events.orchestratorStarted("root/c", "root", "part", "r:root/c");
            List<ObjectNode> got = trace.events();
            assertTrue(got.get(0).get("parent").isNull());
            assertEquals("root", got.get(1).get("parent").asText());
            assertEquals("orchestrator", got.get(1).get("mode").asText());
            assertEquals(0, got.get(1).get("depends_on").size());
        }
    }

    @Test
    void metricsAreRoundedAsTheCommandLineShowsThem() {
        SwarmResult.Metrics m = new SwarmResult.Metrics(7, 17, 17.0 / 7, 1_234_567, 2_469_134, 3, 20, 900, 2);
        ObjectNode o = SwarmTraceEvents.metricsJson(m);
        assertEquals(2.429, o.get("parallelism").asDouble());
        assertEquals(1.23, o.get("wall_ms").asDouble());
        assertEquals(2.47, o.get("serial_ms").asDouble());
        assertEquals(0.5, o.get("wall_over_serial").asDouble());
        assertEquals(0, SwarmTraceEvents.metricsJson(new SwarmResult.Metrics(0, 0, 0, 5, 0, 0, 0, 0, 0)).get("wall_over_serial").asInt());
    }
}
