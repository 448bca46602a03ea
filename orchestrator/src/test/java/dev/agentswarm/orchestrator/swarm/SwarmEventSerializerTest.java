package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import java.io.NotSerializableException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The journal's binary layout of swarm events: every event back as it was, and bytes it cannot read refused by name. */
class SwarmEventSerializerTest {

    private static final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "swarm-event-serializer");
    private static final Serialization serialization = SerializationExtension.get(system.classicSystem());

    @AfterAll
    static void stop() {
        system.terminate();
    }

    /** Turn records as episodes make them: a text completion with token ids and log-probs, native tool calls, in flight or not. */
    static List<SwarmEvent> steps() throws Exception {
        Completion hermes = new Completion("<tool_call>{\"name\": \"search\", \"arguments\": {\"q\": \"Eiffel — 1889\"}}</tool_call>",
                List.of(), new int[] {151657, 0, -3, Integer.MAX_VALUE, 42}, new float[] {-0.25f, 0f, -17.5f, Float.NaN, -1e-9f},
                FinishReason.TOOL_CALLS, 7, 812, 5, 9, new int[] {1, 2, 3});
        Completion native_ = new Completion("", List.of(new ToolCall("call_0", "calculator", Json.parse("{\"expr\": \"2+2\", \"n\": [1, null]}")),
                new ToolCall("call_1", "finish", Json.object())), null, null, FinishReason.STOP, -1, 0, 0);
        ToolResult ok = new ToolResult("call_0", "calculator", "4", ToolStatus.OK, false, 1_234_567);
        ToolResult cut = new ToolResult("call_1", "search", "x".repeat(5000) + "…", ToolStatus.TIMEOUT, true, Long.MAX_VALUE);
        return List.of(
                new SwarmEvent.StepRecorded("run:root", 1, new EpisodeHistory.Step(hermes, null)),
                new SwarmEvent.StepRecorded("run:root", 1, new EpisodeHistory.Step(hermes, List.of(ok, cut))),
                new SwarmEvent.StepRecorded("run:root/a#2", 12, new EpisodeHistory.Step(native_, List.of())),
                new SwarmEvent.StepRecorded("run:root/b", 3, new EpisodeHistory.Step(Completion.ofText("finished", 10, 2), List.of(ok))));
    }

    /** One event of every kind (but a batch), with absent (null) fields where they may be absent. */
    static List<SwarmEvent> everyKind() throws Exception {
        List<SwarmEvent> all = new ArrayList<>();
        all.add(new SwarmEvent.SwarmStarted("task-1", "Find who built the tower, and when: ünïcödé ✓"));
        all.addAll(SwarmLedgerTest.journal()); // plans with dependencies and joins, attempts, budgets, rounds, the end
        all.addAll(steps());
        all.add(new SwarmEvent.AttemptEnded("run:root/c", SwarmEvent.Outcome.FAILED, null, 0, 0, 0, null));
        all.add(new SwarmEvent.SwarmEnded(null, StopReason.DEADLINE, "the swarm's deadline", 3, 0));
        return all;
    }

    @Test
    void everyEventComesBackAsItWasThroughPekkosSerialization() throws Exception {
        for (SwarmEvent e : everyKind()) {
            Serializer s = serialization.findSerializerFor(e);
            assertInstanceOf(SwarmEventSerializer.class, s, "the binding of " + e.getClass().getSimpleName());
            byte[] bytes = serialization.serialize(e).get();
            assertEquals(e, serialization.deserialize(bytes, s.identifier(), Serializers.manifestFor(s, e)).get());
        }
    }

    @Test
    void aTurnRecordIsSmallerThanJacksonCbor() throws Exception {
        // A sampled turn: a tool call, its 40 token ids and log-probs, and a short result. Jackson spent its
        // bytes on field names and wider numbers; the text is the same either way.
        int[] ids = new int[40];
        float[] logprobs = new float[40];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1000 + 3_571 * i % 150_000;
            logprobs[i] = -0.01f * i;
        }
        String call = "<tool_call>{\"name\": \"work\", \"arguments\": {\"step\": \"3\"}}</tool_call>";
        List<ToolResult> results = List.of(new ToolResult("call_0", "work", "done 3", ToolStatus.OK, false, 10_412_000));
        SwarmEvent sampled = new SwarmEvent.StepRecorded("r7:root/s41", 3, new EpisodeHistory.Step(
                new Completion(call, List.of(), ids, logprobs, FinishReason.STOP, 4, 310, ids.length), results));
        SwarmEvent scripted = new SwarmEvent.StepRecorded("r7:root/s41", 3, new EpisodeHistory.Step(Completion.ofText(call, 310, 14),
                results)); // as the swarm benchmark's policy answers: no token ids
        Serializer jackson = serialization.serializerFor(ToolResult.class); // what swarm events used to be written with
        int[] compact = {SwarmEventSerializer.encode(sampled).length, SwarmEventSerializer.encode(scripted).length};
        int[] cbor = {jackson.toBinary(sampled).length, jackson.toBinary(scripted).length};
        assertTrue(compact[0] < 0.65 * cbor[0], "sampled: " + compact[0] + " bytes against Jackson's " + cbor[0]);
        assertTrue(compact[1] < 0.4 * cbor[1], "scripted: " + compact[1] + " bytes against Jackson's " + cbor[1]);
    }

    @Test
    void eventsJournaledAsJacksonCborBeforeThisLayoutAreStillRead() throws Exception {
        Serializer jackson = serialization.serializerFor(ToolResult.class);
        assertEquals("JacksonCborSerializer", jackson.getClass().getSimpleName());
        for (SwarmEvent e : everyKind()) {
            byte[] old = jackson.toBinary(e);
            assertEquals(e, serialization.deserialize(old, jackson.identifier(), e.getClass().getName()).get());
        }
    }

    @Test
    void aBatchComesBackAsItsEventsInOrderAndNeverNests() throws Exception {
        List<SwarmEvent> events = everyKind();
        SwarmEvent.Batch batch = new SwarmEvent.Batch(events);
        assertEquals(batch, SwarmEventSerializer.decode(SwarmEventSerializer.encode(batch)));
        int separately = 0;
        for (SwarmEvent e : events) separately += SwarmEventSerializer.encode(e).length - 1; // without each one's version byte
        assertEquals(1 + 1 + 1 + separately, SwarmEventSerializer.encode(batch).length, "version, kind, size, then the events");
        assertThrows(IllegalArgumentException.class, () -> new SwarmEvent.Batch(List.of(batch)));
        // Bytes that say a batch holds a batch are refused too.
        byte[] one = SwarmEventSerializer.encode(new SwarmEvent.Batch(List.of(new SwarmEvent.RoundEnded(1))));
        byte[] nested = {one[0], one[1], one[2], one[1], one[2], one[3], one[4]}; // version, batch of 1: batch of 1: RoundEnded
        NotSerializableException x = assertThrows(NotSerializableException.class, () -> SwarmEventSerializer.decode(nested));
        assertTrue(x.getMessage().contains("inside another"), x.getMessage());
        assertEquals(List.of(new SwarmEvent.RoundEnded(1), new SwarmEvent.RoundEnded(2)), SwarmEvent.Batch.unpacked(
                List.of(new SwarmEvent.Batch(List.of(new SwarmEvent.RoundEnded(1))), new SwarmEvent.RoundEnded(2))));
    }

    @Test
    void theLayoutCoversEveryFieldOfWhatItWrites() {
        // A field added to one of these records would be dropped from the journal without a word: the
        // layout (and its version, when older journals must still be read) has to change with it.
        Map<Class<?>, Integer> fields = new LinkedHashMap<>();
        fields.put(SwarmEvent.SwarmStarted.class, 2);
        fields.put(SwarmEvent.StepRecorded.class, 3);
        fields.put(SwarmEvent.RoundPlanned.class, 4);
        fields.put(SwarmEvent.AttemptStarted.class, 6);
        fields.put(SwarmEvent.AttemptEnded.class, 7);
        fields.put(SwarmEvent.BudgetExhausted.class, 2);
        fields.put(SwarmEvent.RoundStopped.class, 2);
        fields.put(SwarmEvent.RoundEnded.class, 1);
        fields.put(SwarmEvent.SwarmEnded.class, 5);
        fields.put(SwarmEvent.Batch.class, 1);
        fields.put(EpisodeHistory.Step.class, 2);
        fields.put(Completion.class, 10);
        fields.put(ToolCall.class, 3);
        fields.put(ToolResult.class, 6);
        fields.put(Plan.class, 3);
        fields.put(SubTask.class, 5);
        fields.put(Join.class, 2);
        fields.forEach((type, n) -> assertEquals(n, type.getRecordComponents().length,
                type.getName() + " has other fields than SwarmEventSerializer writes"));
        assertEquals(fields.keySet().stream().filter(t -> SwarmEvent.class.isAssignableFrom(t)).count(),
                SwarmEvent.class.getPermittedSubclasses().length, "a kind of swarm event without a layout");
    }

    @Test
    void aVersionThisBuildDoesNotKnowIsRefusedByName() throws Exception {
        byte[] bytes = SwarmEventSerializer.encode(everyKind().get(0));
        assertEquals(JournalFormat.VERSION, bytes[0], "the journal's format version comes first");
        bytes[0] = (byte) (JournalFormat.VERSION + 1);
        Throwable refused = serialization.deserialize(bytes, SwarmEventSerializer.IDENTIFIER, "E").failed().get();
        JournalFormat.NewerThanThisBuild newer = JournalFormat.newerFormatIn(new RuntimeException("a journal plugin's wrapper", refused));
        assertEquals("SwarmEvent is in journal format " + (JournalFormat.VERSION + 1) + ", and this build reads format "
                + JournalFormat.VERSION + " and older", newer.getMessage());
        bytes[0] = 0;
        NotSerializableException x = assertThrows(NotSerializableException.class, () -> SwarmEventSerializer.decode(bytes));
        assertTrue(x.getMessage().contains("SwarmEvent has journal format 0"), x.getMessage());
        bytes[0] = (byte) JournalFormat.VERSION;
        bytes[1] = 99;
        x = assertThrows(NotSerializableException.class, () -> SwarmEventSerializer.decode(bytes));
        assertTrue(x.getMessage().contains("unknown kind 99"), x.getMessage());
    }

    @Test
    void bytesCutShortOrRunningOnAreRefusedNotMisread() throws Exception {
        for (SwarmEvent e : everyKind()) {
            byte[] bytes = SwarmEventSerializer.encode(e);
            for (int len = 0; len < bytes.length; len++) {
                byte[] cut = java.util.Arrays.copyOf(bytes, len);
                assertThrows(NotSerializableException.class, () -> SwarmEventSerializer.decode(cut), e + " cut to " + len + " bytes");
            }
            byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
            NotSerializableException x = assertThrows(NotSerializableException.class, () -> SwarmEventSerializer.decode(longer));
            assertTrue(x.getMessage().contains("1 bytes past its end"), x.getMessage());
        }
    }
}
