package dev.agentswarm.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.agentswarm.core.json.Json;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every protocol record crosses nodes through Pekko's Jackson CBOR serializer and comes back equal. */
class CborRoundTripTest {

    private static ActorSystem<Void> system;
    private static Serialization serialization;

    @BeforeAll
    static void start() {
        system = ActorSystem.create(Behaviors.empty(), "cbor");
        serialization = SerializationExtension.get(system.classicSystem());
    }

    @AfterAll
    static void stop() {
        system.terminate();
    }

    private static Object roundTrip(Object o) {
        Serializer s = serialization.findSerializerFor(o);
        assertEquals("JacksonCborSerializer", s.getClass().getSimpleName(), "bound to jackson-cbor: " + o.getClass());
        byte[] bytes = serialization.serialize(o).get();
        return serialization.deserialize(bytes, s.identifier(), o.getClass().getName()).get();
    }

    @Test
    void everyRecordRoundTrips() throws Exception {
        ToolCall call = new ToolCall("call_0", "calculator", Json.parse("{\"expression\": \"6 * 7\"}"));
        Completion completion = new Completion("<tool_call>…</tool_call>", List.of(call), new int[] {5, 17, 99},
                new float[] {-0.1f, -2.5f, -0.003f}, FinishReason.TOOL_CALLS, 7, 120, 3);
        ToolResult result = new ToolResult("call_0", "calculator", "42", ToolStatus.OK, false, 1234);
        Turn assistant = Turn.assistant(0, completion, List.of(call), List.of("a format error"),
                List.of(Message.system("s"), Message.user("u")), new Timing(10, 20));
        Turn observation = Turn.observation(1, Role.USER, "<tool_response>\n42\n</tool_response>", List.of(result), new Timing(30, 5));
        Trajectory t = new Trajectory("e1", "g1", "t1", List.of(Message.system("s"), Message.user("u")),
                List.of(assistant, observation), "42", StopReason.FINAL_ANSWER, null,
                new EpisodeStats(1, 1, 1, 0, 120, 3, 999), new RewardBreakdown(Map.of("outcome", 1.0, "format", 0.5), 1.25));
        EpisodeSpec spec = new EpisodeSpec("sys", "hermes", List.of("calculator"), "auto", 16, 32000, 12000, 60_000,
                5_000, 8000, new SamplingParams(0.7, 0.9, 40, 256, List.of("</tool_call>"), 42L), false);
        List<Object> records = List.of(
                Task.of("t1", "What is 6*7?"),
                new Task("t2", "p", "42", Map.of("suite", "arithmetic")),
                new SwarmProtocol.SpawnOutcome("[a] done: 42", true),
                new SwarmProtocol.EpisodeProgress("swarm-1/a", 3, "calculator({\"expression\":\"6*7\"})", 120),
                call, completion, result, assistant, observation, t, spec,
                new CompletionRequest("e1", 2, List.of(Message.assistant("x", List.of(call)), Message.tool("call_0", "calculator", "42")),
                        List.of(new ToolSpec("calculator", "d", Json.parse("{\"type\":\"object\"}"))), "required", spec.sampling()),
                RewardBreakdown.NONE,
                // Records with arrays compare their contents: a notice that crossed a wire equals the one sent.
                new WeightsProtocol.ChunkUnavailable(2, WeightsProtocol.WHOLE, -5L, new WeightsProtocol.WeightsNotice(3, 2500, 1000, 3,
                        new int[] {1, -2, 0x7fffffff}, system.<WeightsProtocol.SourceCommand>deadLetters())),
                new WeightsProtocol.Latest(WeightsProtocol.WeightsNotice.withoutChecksums(4, 2500, 1000, system.deadLetters())));
        for (Object o : records) assertEquals(o, roundTrip(o), "round trip of " + o.getClass().getSimpleName());
    }
}
