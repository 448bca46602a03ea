package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.EpisodeHistory;
import dev.agentswarm.core.protocol.FinishReason;
import dev.agentswarm.core.protocol.StopReason;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.core.protocol.ToolResult;
import dev.agentswarm.core.protocol.ToolStatus;
import java.io.NotSerializableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * How the journal stores {@link SwarmEvent}s: a compact binary layout written by hand, instead of Jackson
 * CBOR. A swarm journals every turn of every episode (a hundred sub-agents of ten turns are over a
 * thousand events), and CBOR through Jackson repeated each record's field names and cost more CPU than
 * the rest of the journal. Each event is its format version (one byte), its kind (one byte), then its
 * fields in declaration order: whole numbers as variable-length integers, strings as UTF-8 with their
 * length (null has its own mark), enums by name, lists with their size, log-probs as 4-byte floats and
 * a tool call's arguments as JSON text. A {@link SwarmEvent.Batch} (how the journal stores an append) is
 * its size and then each event's kind and fields, one version byte for all.
 *
 * <p>A byte string of a newer format version is refused by {@link JournalFormat#checkReadable} before
 * anything else is read; one of a kind this build does not know, or cut short, with what is wrong
 * ({@link NotSerializableException}): Pekko reports either as a failed recovery, and a journal written by
 * a newer build is never half-read. Events written before this serializer (Jackson
 * CBOR) are still read by Jackson: the serializer id stored with each event says which.
 */
public final class SwarmEventSerializer extends SerializerWithStringManifest {

    /** Pekko's id of this serializer, stored with every event: never change it. */
    public static final int IDENTIFIER = 720_513;

    /** The layout written now: the journal's format ({@link JournalFormat}), whose check refuses a newer one. */
    static final int VERSION = JournalFormat.VERSION;

    private static final String MANIFEST = "E"; // the kind is in the bytes: one manifest for all events

    /** The event kinds, by their place in this list: the byte after the version. Add at the end only. */
    private enum Kind { STARTED, STEP, ROUND_PLANNED, ATTEMPT_STARTED, ATTEMPT_ENDED, BUDGET_EXHAUSTED, ROUND_STOPPED, ROUND_ENDED, ENDED, BATCH }

    @Override
    public int identifier() {
        return IDENTIFIER;
    }

    @Override
    public String manifest(Object o) {
        return MANIFEST;
    }

    @Override
    public byte[] toBinary(Object o) {
        if (!(o instanceof SwarmEvent e)) throw new IllegalArgumentException("not a swarm event: " + o.getClass().getName());
        return encode(e);
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        return decode(bytes);
    }

    /** The event's bytes, in format {@link #VERSION}. */
    public static byte[] encode(SwarmEvent event) {
        Out out = new Out();
        out.bytes(VERSION);
        write(out, event);
        return out.toArray();
    }

    /** The event's kind and fields; a batch is its size and then each of its events so. */
    private static void write(Out out, SwarmEvent event) {
        if (event instanceof SwarmEvent.StepRecorded e) { // nearly every event: first
            out.bytes(Kind.STEP.ordinal());
            out.string(e.episodeId());
            out.varint(e.turn());
            writeStep(out, e.step());
        } else if (event instanceof SwarmEvent.SwarmStarted e) {
            out.bytes(Kind.STARTED.ordinal());
            out.string(e.taskId());
            out.string(e.prompt());
        } else if (event instanceof SwarmEvent.RoundPlanned e) {
            out.bytes(Kind.ROUND_PLANNED.ordinal());
            out.varint(e.round());
            out.varint(e.turn());
            writePlan(out, e.plan());
            out.varint(e.agents().size());
            e.agents().forEach((id, agent) -> {
                out.string(id);
                out.string(agent);
            });
        } else if (event instanceof SwarmEvent.AttemptStarted e) {
            out.bytes(Kind.ATTEMPT_STARTED.ordinal());
            out.varint(e.round());
            out.string(e.subTaskId());
            out.string(e.agent());
            out.varint(e.attempt());
            out.string(e.episodeId());
            out.bool(e.onSwarmClock());
        } else if (event instanceof SwarmEvent.AttemptEnded e) {
            out.bytes(Kind.ATTEMPT_ENDED.ordinal());
            out.string(e.episodeId());
            out.enumName(e.outcome());
            out.string(e.text());
            out.varint(e.steps());
            out.varint(e.tokens());
            out.varint(e.turns());
            out.string(e.trajectoryRef());
        } else if (event instanceof SwarmEvent.BudgetExhausted e) {
            out.bytes(Kind.BUDGET_EXHAUSTED.ordinal());
            out.string(e.budget());
            out.string(e.detail());
        } else if (event instanceof SwarmEvent.RoundStopped e) {
            out.bytes(Kind.ROUND_STOPPED.ordinal());
            out.varint(e.round());
            out.string(e.why());
        } else if (event instanceof SwarmEvent.RoundEnded e) {
            out.bytes(Kind.ROUND_ENDED.ordinal());
            out.varint(e.round());
        } else if (event instanceof SwarmEvent.SwarmEnded e) {
            out.bytes(Kind.ENDED.ordinal());
            out.string(e.answer());
            out.enumName(e.stopReason());
            out.string(e.error());
            out.varint(e.turns());
            out.varint(e.tokens());
        } else if (event instanceof SwarmEvent.Batch b) {
            out.bytes(Kind.BATCH.ordinal());
            out.varint(b.events().size());
            for (SwarmEvent e : b.events()) write(out, e);
        } else {
            throw new IllegalArgumentException("no layout for swarm event " + event.getClass().getName());
        }
    }

    /** The event these bytes hold; a version or kind this build does not know, or bytes cut short, are refused. */
    public static SwarmEvent decode(byte[] bytes) throws NotSerializableException {
        In in = new In(bytes);
        try {
            checkVersion(in.u8());
            SwarmEvent e = read(in, true);
            if (in.left() != 0) {
                throw new NotSerializableException("a swarm journal event (" + e.getClass().getSimpleName() + ") with " + in.left()
                        + " bytes past its end");
            }
            return e;
        } catch (Malformed | IllegalArgumentException x) {
            NotSerializableException n = new NotSerializableException("a swarm journal event that cannot be read: " + x.getMessage());
            n.initCause(x);
            throw n;
        }
    }

    /**
     * Refuses a layout this build does not read, before anything else is decoded: a newer one with
     * {@link JournalFormat.NewerThanThisBuild}, which the journal reports naming both versions.
     */
    private static void checkVersion(int version) {
        JournalFormat.checkReadable(version, "SwarmEvent");
    }

    /** One event, from its kind on; a batch only where {@code batchHere} (not inside another). */
    private static SwarmEvent read(In in, boolean batchHere) {
        int kind = in.u8();
        if (kind >= Kind.values().length) throw new Malformed("unknown kind " + kind + " (format version " + VERSION + ")");
        return switch (Kind.values()[kind]) {
            case STARTED -> new SwarmEvent.SwarmStarted(in.string(), in.string());
            case STEP -> new SwarmEvent.StepRecorded(in.string(), in.int32(), readStep(in));
            case ROUND_PLANNED -> {
                int round = in.int32();
                int turn = in.int32();
                Plan plan = readPlan(in);
                int n = in.count();
                Map<String, String> agents = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) agents.put(in.string(), in.string());
                yield new SwarmEvent.RoundPlanned(round, turn, plan, agents);
            }
            case ATTEMPT_STARTED -> new SwarmEvent.AttemptStarted(in.int32(), in.string(), in.string(), in.int32(), in.string(),
                    in.bool());
            case ATTEMPT_ENDED -> new SwarmEvent.AttemptEnded(in.string(), in.enumValue(SwarmEvent.Outcome.class), in.string(),
                    in.varint(), in.varint(), in.varint(), in.string());
            case BUDGET_EXHAUSTED -> new SwarmEvent.BudgetExhausted(in.string(), in.string());
            case ROUND_STOPPED -> new SwarmEvent.RoundStopped(in.int32(), in.string());
            case ROUND_ENDED -> new SwarmEvent.RoundEnded(in.int32());
            case ENDED -> new SwarmEvent.SwarmEnded(in.string(), in.enumValue(StopReason.class), in.string(), in.varint(), in.varint());
            case BATCH -> {
                if (!batchHere) throw new Malformed("a batch of events inside another");
                int n = in.count();
                List<SwarmEvent> events = new ArrayList<>(n);
                for (int i = 0; i < n; i++) events.add(read(in, false));
                yield new SwarmEvent.Batch(events);
            }
        };
    }

    private static void writeStep(Out out, EpisodeHistory.Step step) {
        Completion c = step.completion();
        out.string(c.text());
        out.varint(c.toolCalls().size());
        for (ToolCall call : c.toolCalls()) {
            out.string(call.id());
            out.string(call.name());
            out.string(call.arguments() == null ? null : Json.write(call.arguments()));
        }
        out.ints(c.tokenIds());
        out.floats(c.logprobs());
        out.enumName(c.finishReason());
        out.varint(c.policyVersion());
        out.varint(c.promptTokens());
        out.varint(c.completionTokens());
        out.varint(c.lastPolicyVersion());
        out.ints(c.promptIds());
        List<ToolResult> results = step.results();
        out.varint(results == null ? 0 : results.size() + 1L); // 0: in flight, no results yet
        if (results == null) return;
        for (ToolResult r : results) {
            out.string(r.callId());
            out.string(r.name());
            out.string(r.content());
            out.enumName(r.status());
            out.bool(r.truncated());
            out.varint(r.durationNanos());
        }
    }

    private static EpisodeHistory.Step readStep(In in) {
        String text = in.string();
        int calls = in.count();
        List<ToolCall> toolCalls = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            String id = in.string();
            String name = in.string();
            String arguments = in.string();
            try {
                toolCalls.add(new ToolCall(id, name, arguments == null ? null : Json.parse(arguments)));
            } catch (JsonProcessingException e) {
                throw new Malformed("the arguments of tool call " + id + " are not JSON: " + e.getOriginalMessage());
            }
        }
        int[] tokenIds = in.ints();
        float[] logprobs = in.floats();
        FinishReason finish = in.enumValue(FinishReason.class);
        long policyVersion = in.varint();
        int promptTokens = in.int32();
        int completionTokens = in.int32();
        long lastPolicyVersion = in.varint();
        int[] promptIds = in.ints();
        Completion c = new Completion(text, toolCalls, tokenIds, logprobs, finish, policyVersion, promptTokens, completionTokens,
                lastPolicyVersion, promptIds);
        long n = in.varint();
        if (n == 0) return new EpisodeHistory.Step(c, null);
        List<ToolResult> results = new ArrayList<>((int) Math.min(n - 1, in.left()));
        for (long i = 1; i < n; i++) {
            results.add(new ToolResult(in.string(), in.string(), in.string(), in.enumValue(ToolStatus.class), in.bool(), in.varint()));
        }
        return new EpisodeHistory.Step(c, results);
    }

    private static void writePlan(Out out, Plan plan) {
        out.varint(plan.subTasks().size());
        for (SubTask t : plan.subTasks()) {
            out.string(t.id());
            out.string(t.goal());
            out.enumName(t.mode());
            out.strings(t.tools());
            out.strings(t.dependsOn());
        }
        out.varint(plan.stages().size());
        for (List<String> stage : plan.stages()) out.strings(stage);
        out.enumName(plan.join().kind());
        out.varint(plan.join().k());
    }

    private static Plan readPlan(In in) {
        int n = in.count();
        List<SubTask> subTasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            subTasks.add(new SubTask(in.string(), in.string(), in.enumValue(SubAgentMode.class), in.strings(), in.strings()));
        }
        int stageCount = in.count();
        List<List<String>> stages = new ArrayList<>(stageCount);
        for (int i = 0; i < stageCount; i++) stages.add(in.strings());
        return new Plan(subTasks, stages, new Join(in.enumValue(Join.Kind.class), in.int32()));
    }

    /** Bytes that end early or say something impossible. */
    private static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message);
        }
    }

    /** A growing byte array. Integers are zig-zag varints: small magnitudes, either sign, take one or two bytes. */
    private static final class Out {
        private byte[] buf = new byte[256];
        private int n;

        private void room(int more) {
            if (n + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
        }

        void bytes(int b) {
            room(1);
            buf[n++] = (byte) b;
        }

        void bool(boolean b) {
            bytes(b ? 1 : 0);
        }

        void varint(long v) {
            long z = (v << 1) ^ (v >> 63);
            room(10);
            while ((z & ~0x7FL) != 0) {
                buf[n++] = (byte) ((z & 0x7F) | 0x80);
                z >>>= 7;
            }
            buf[n++] = (byte) z;
        }

        /** Null as 0, otherwise the UTF-8 length + 1, then the bytes. */
        void string(String s) {
            if (s == null) {
                varint(0);
                return;
            }
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            varint(utf8.length + 1L);
            room(utf8.length);
            System.arraycopy(utf8, 0, buf, n, utf8.length);
            n += utf8.length;
        }

        void enumName(Enum<?> e) {
            string(e == null ? null : e.name());
        }

        void strings(List<String> list) {
            varint(list.size());
            for (String s : list) string(s);
        }

        void ints(int[] values) {
            varint(values.length);
            for (int v : values) varint(v);
        }

        void floats(float[] values) {
            varint(values.length);
            room(4 * values.length);
            for (float f : values) {
                int bits = Float.floatToRawIntBits(f);
                buf[n++] = (byte) (bits >>> 24);
                buf[n++] = (byte) (bits >>> 16);
                buf[n++] = (byte) (bits >>> 8);
                buf[n++] = (byte) bits;
            }
        }

        byte[] toArray() {
            return Arrays.copyOf(buf, n);
        }
    }

    private static final class In {
        private final byte[] buf;
        private int at;

        In(byte[] buf) {
            this.buf = buf;
        }

        int left() {
            return buf.length - at;
        }

        int u8() {
            if (at >= buf.length) throw new Malformed("the bytes end at " + at + ", inside the event");
            return buf[at++] & 0xFF;
        }

        boolean bool() {
            int b = u8();
            if (b > 1) throw new Malformed("byte " + (at - 1) + " should be a boolean (0 or 1), is " + b);
            return b == 1;
        }

        long varint() {
            long z = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = u8();
                z |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) return (z >>> 1) ^ -(z & 1);
            }
            throw new Malformed("a variable-length integer longer than 10 bytes at " + at);
        }

        int int32() {
            long v = varint();
            if (v != (int) v) throw new Malformed("a whole number out of range at " + at + ": " + v);
            return (int) v;
        }

        /** A size that must fit in what is left (each element takes at least a byte). */
        int count() {
            long v = varint();
            if (v < 0 || v > left()) throw new Malformed("a size of " + v + " at " + at + " with " + left() + " bytes left");
            return (int) v;
        }

        String string() {
            long len = varint() - 1;
            if (len < 0) return null;
            if (len > left()) throw new Malformed("a string of " + len + " bytes at " + at + " with " + left() + " bytes left");
            String s = new String(buf, at, (int) len, StandardCharsets.UTF_8);
            at += (int) len;
            return s;
        }

        <E extends Enum<E>> E enumValue(Class<E> type) {
            String name = string();
            if (name == null) return null;
            try {
                return Enum.valueOf(type, name);
            } catch (IllegalArgumentException e) {
                throw new Malformed("\"" + name + "\" is not a " + type.getSimpleName());
            }
        }

        List<String> strings() {
            int n = count();
            List<String> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(string());
            return out;
        }

        int[] ints() {
            int n = count();
            int[] out = new int[n];
            for (int i = 0; i < n; i++) out[i] = int32();
            return out;
        }

        float[] floats() {
            int n = count();
            if (4L * n > left()) throw new Malformed(n + " floats at " + at + " with " + left() + " bytes left");
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = Float.intBitsToFloat(((buf[at] & 0xFF) << 24) | ((buf[at + 1] & 0xFF) << 16) | ((buf[at + 2] & 0xFF) << 8)
                        | (buf[at + 3] & 0xFF));
                at += 4;
            }
            return out;
        }
    }
}
