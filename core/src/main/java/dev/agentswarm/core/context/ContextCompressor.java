package dev.agentswarm.core.context;

import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.ToolCall;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Keeps the context sent to the policy within a token budget (the PARL seed's 12,000 by default).
 *
 * <p>Input: {@code messages[0]} the system prompt, {@code messages[1]} the task, then the history in
 * order. The history is read as <em>turns</em>: a message that is not an observation (an assistant
 * message, normally) followed by the observations that answer it, where an observation is a
 * {@code tool} message or a {@code user} message after the task (tool responses of text formats,
 * format feedback). The last turn is the <em>current</em> one.
 *
 * <p>When everything fits the input list is returned as it is: the hot path counts once and
 * allocates nothing else. Otherwise, step by step until it fits:
 * <ol>
 *   <li>observations of earlier turns are shortened, oldest first, to a head plus
 *       {@code …[observation shortened: N of M characters kept]};</li>
 *   <li>the oldest turns are folded, as few as needed, into one {@code user} message starting
 *       {@code [Summary of earlier turns 1–k]} that lists each folded assistant message's tool calls
 *       ({@code name(args)}, cut short) and a short head of each observation. Whole turns fold
 *       together, so no kept {@code tool} message ever answers a call that was folded away (strict
 *       servers reject such orphans);</li>
 *   <li>last resort, when system, task and the current turn alone are too much: the summary is
 *       reduced to its header, then dropped; the current turn's messages are cut (assistant text
 *       first, then its observations, the last message last), then the task, then the system prompt,
 *       each to the longest head that fits, followed by a marker.</li>
 * </ol>
 * System first, task second and the last message always stay (possibly shortened), and tool calls
 * are never altered. So the result is within budget whenever the budget holds at least
 * {@link #minimumTokens}: system, task and the current turn with empty contents. Below that nothing
 * can be done without breaking the conversation, and the result is that minimal context.
 *
 * <p>Deterministic; stateless apart from its settings; thread-safe if the counter is.
 */
public final class ContextCompressor {

    /** The PARL seed's context budget. */
    public static final int DEFAULT_BUDGET = 12_000;
    /** Characters an older observation keeps in step 1. */
    public static final int OBSERVATION_HEAD_CHARS = 400;
    /** Turns listed one by one in the summary; older folded turns are only counted. */
    static final int SUMMARY_MAX_TURNS = 40;
    private static final int SUMMARY_ARGS_CHARS = 80;
    private static final int SUMMARY_HEAD_CHARS = 100;
    /** Shortening an observation saves nothing unless it is clearly longer than head plus marker. */
    private static final int SHORTEN_MIN_SAVING = 80;

    private final TokenCounter counter;
    private final int budget;

    public ContextCompressor(TokenCounter counter, int budget) {
        if (counter == null) throw new IllegalArgumentException("counter must not be null");
        if (budget <= 0) throw new IllegalArgumentException("context budget must be > 0, got " + budget);
        this.counter = counter;
        this.budget = budget;
    }

    public ContextCompressor(TokenCounter counter) {
        this(counter, DEFAULT_BUDGET);
    }

    public int budget() {
        return budget;
    }

    /** The context within budget; see the class comment for the rules. */
    public CompressedContext fit(List<Message> messages) {
        long total = 0;
        for (int i = 0, n = messages.size(); i < n; i++) total += counter.count(messages.get(i));
        if (total <= budget) return new CompressedContext(messages, (int) total, false, 0, 0);
        return compress(messages);
    }

    /**
     * As {@link #fit(List)}, trusting {@code knownTokens} (the caller's running total of
     * {@code counter.count(m)} over {@code messages}, or negative when unknown): within budget it
     * returns at once without counting anything.
     */
    public CompressedContext fit(List<Message> messages, int knownTokens) {
        if (knownTokens >= 0 && knownTokens <= budget) return new CompressedContext(messages, knownTokens, false, 0, 0);
        return fit(messages);
    }

    /** The least any compression can reach: system, task and the current turn with empty contents. */
    public int minimumTokens(List<Message> messages) {
        int n = messages.size();
        if (n == 0) return 0;
        int histStart = Math.min(2, n);
        int[] starts = turnStarts(messages, histStart);
        int lastStart = starts.length == 0 ? n : starts[starts.length - 1];
        long min = 0;
        for (int i = 0; i < histStart; i++) min += counter.count(messages.get(i).withContent(""));
        for (int i = lastStart; i < n; i++) min += counter.count(messages.get(i).withContent(""));
        return (int) Math.min(Integer.MAX_VALUE, min);
    }

    private CompressedContext compress(List<Message> in) {
        int n = in.size();
        Message[] w = in.toArray(new Message[0]);
        int[] tok = new int[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            tok[i] = counter.count(w[i]);
            total += tok[i];
        }
        boolean[] shortened = new boolean[n];
        int histStart = Math.min(2, n);
        int[] starts = turnStarts(in, histStart);
        int turns = starts.length;
        int lastStart = turns == 0 ? n : starts[turns - 1];

        // 1. Older observations, oldest first, to a head plus marker.
        for (int i = histStart; i < lastStart && total > budget; i++) {
            if (!isObservation(w[i])) continue;
            Message s = shortenObservation(w[i]);
            if (s == null) continue;
            int t = counter.count(s);
            if (t >= tok[i]) continue;
            total += t - tok[i];
            w[i] = s;
            tok[i] = t;
            shortened[i] = true;
        }

        // 2. Fold the fewest oldest turns into one summary; the current turn never folds.
        int foldEnd = histStart;
        Message summary = null;
        int summaryTok = 0;
        int folded = 0;
        if (total > budget && turns > 1) {
            long pinned = 0;
            for (int i = 0; i < histStart; i++) pinned += tok[i];
            long[] rest = new long[turns + 1]; // rest[k]: tokens of turns k.. as they are now
            for (int g = turns - 1; g >= 0; g--) {
                int end = g + 1 < turns ? starts[g + 1] : n;
                long sum = 0;
                for (int i = starts[g]; i < end; i++) sum += tok[i];
                rest[g] = rest[g + 1] + sum;
            }
            String[] lines = new String[turns - 1];
            for (int g = 0; g < turns - 1; g++) lines[g] = summaryLine(in, g, starts[g], starts[g + 1]);
            int k = turns - 1;
            for (int j = 1; j <= turns - 1; j++) {
                Message s = Message.user(summaryText(lines, j));
                int st = counter.count(s);
                if (pinned + st + rest[j] <= budget || j == turns - 1) {
                    k = j;
                    summary = s;
                    summaryTok = st;
                    if (pinned + st + rest[j] <= budget) break;
                }
            }
            folded = k;
            foldEnd = starts[k];
            total = pinned + summaryTok + rest[k];
        }

        // 3. Last resort: summary, then the current turn, then the task, then the system prompt.
        if (total > budget && summary != null) {
            Message bare = Message.user(summaryHeader(folded) + " details omitted to fit the context budget");
            int bt = counter.count(bare);
            total += bt - summaryTok;
            summary = bare;
            summaryTok = bt;
            if (total > budget) {
                total -= summaryTok;
                summary = null;
                summaryTok = 0;
            }
        }
        if (total > budget) {
            int[] order = lastResortOrder(n, histStart, lastStart);
            for (int idx : order) {
                if (total <= budget) break;
                if (w[idx].content().isEmpty()) continue;
                Message s = shrink(w[idx], budget - (total - tok[idx]), label(idx, w[idx]));
                int t = counter.count(s);
                total += t - tok[idx];
                w[idx] = s;
                tok[idx] = t;
                if (idx >= histStart && isObservation(s)) shortened[idx] = true;
            }
        }

        List<Message> out = new ArrayList<>(n - (foldEnd - histStart) + 1);
        for (int i = 0; i < histStart; i++) out.add(w[i]);
        if (summary != null) out.add(summary);
        int shortenedCount = 0;
        for (int i = foldEnd; i < n; i++) {
            out.add(w[i]);
            if (shortened[i]) shortenedCount++;
        }
        return new CompressedContext(Collections.unmodifiableList(out), (int) Math.min(Integer.MAX_VALUE, total), true,
                shortenedCount, foldEnd - histStart);
    }

    /** Indices where turns start: every history message that is not an observation, and the first one. */
    private static int[] turnStarts(List<Message> messages, int histStart) {
        int n = messages.size();
        int[] starts = new int[Math.max(0, n - histStart)];
        int count = 0;
        for (int i = histStart; i < n; i++) {
            if (i == histStart || !isObservation(messages.get(i))) starts[count++] = i;
        }
        return Arrays.copyOf(starts, count);
    }

    private static boolean isObservation(Message m) {
        return m.role() == Role.TOOL || m.role() == Role.USER;
    }

    /** Current turn (its opening message first, the last message last), then task, then system. */
    private static int[] lastResortOrder(int n, int histStart, int lastStart) {
        int[] order = new int[(n - lastStart) + histStart];
        int k = 0;
        for (int i = lastStart; i < n; i++) order[k++] = i;
        for (int i = histStart - 1; i >= 0; i--) order[k++] = i;
        return order;
    }

    private static String label(int idx, Message m) {
        if (idx == 0) return "system prompt shortened";
        if (idx == 1) return "task shortened";
        return isObservation(m) ? "observation shortened" : "message shortened";
    }

    private static Message shortenObservation(Message m) {
        String c = m.content();
        if (c.length() <= OBSERVATION_HEAD_CHARS + SHORTEN_MIN_SAVING) return null;
        return m.withContent(cut(c, OBSERVATION_HEAD_CHARS, "observation shortened"));
    }

    /**
     * {@code m} with the longest head of its content that, with the marker, keeps the message within
     * {@code allowed} tokens; with empty content when not even the marker fits (the caller then goes on
     * cutting elsewhere). Binary search on the head length: O(log n) counts.
     */
    private Message shrink(Message m, long allowed, String label) {
        String c = m.content();
        Message empty = m.withContent("");
        if (counter.count(empty) > allowed) return empty;
        int lo = 0;
        int hi = c.length() - 1;
        Message best = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Message candidate = m.withContent(cut(c, mid, label));
            if (counter.count(candidate) <= allowed) {
                best = candidate;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return best != null ? best : empty;
    }

    /** The first {@code keep} characters (never half a surrogate pair) and a marker saying how much is left. */
    static String cut(String c, int keep, String label) {
        int h = Math.min(keep, c.length());
        if (h > 0 && h < c.length() && Character.isHighSurrogate(c.charAt(h - 1))) h--;
        StringBuilder sb = new StringBuilder(h + label.length() + 40).append(c, 0, h);
        if (h > 0) sb.append('\n');
        return sb.append("…[").append(label).append(": ").append(h).append(" of ").append(c.length())
                .append(" characters kept]").toString();
    }

    private static String summaryHeader(int k) {
        return "[Summary of earlier turns 1–" + k + "]";
    }

    private static String summaryText(String[] lines, int k) {
        StringBuilder sb = new StringBuilder(summaryHeader(k));
        int from = Math.max(0, k - SUMMARY_MAX_TURNS);
        if (from > 0) sb.append("\n(turns 1–").append(from).append(" not listed)");
        for (int g = from; g < k; g++) sb.append('\n').append(lines[g]);
        return sb.toString();
    }

    /** One turn of the summary, from the original messages: its tool calls, then a head of each observation. */
    private static String summaryLine(List<Message> in, int turn, int start, int end) {
        StringBuilder sb = new StringBuilder("turn ").append(turn + 1).append(':');
        Message first = in.get(start);
        if (!isObservation(first)) {
            if (!first.toolCalls().isEmpty()) {
                sb.append(" called ");
                boolean sep = false;
                for (ToolCall call : first.toolCalls()) {
                    if (sep) sb.append("; ");
                    sep = true;
                    sb.append(call.name()).append('(');
                    appendHead(sb, call.arguments() == null ? "" : call.arguments().toString(), SUMMARY_ARGS_CHARS);
                    sb.append(')');
                }
            } else {
                sb.append(' ').append(first.role() == null ? "message" : first.role().wire()).append(" said: ");
                appendHead(sb, first.content(), SUMMARY_HEAD_CHARS);
            }
        }
        for (int i = isObservation(first) ? start : start + 1; i < end; i++) {
            Message o = in.get(i);
            sb.append("\n  → ");
            if (o.role() == Role.TOOL) sb.append(o.name() == null ? "tool" : o.name());
            else sb.append(o.role() == null ? "message" : o.role().wire());
            sb.append(": ");
            appendHead(sb, o.content(), SUMMARY_HEAD_CHARS);
        }
        return sb.toString();
    }

    /** Up to {@code max} characters on one line (line breaks and tabs become spaces), then "…" if cut. */
    private static void appendHead(StringBuilder sb, String s, int max) {
        int end = Math.min(s.length(), max);
        if (end > 0 && end < s.length() && Character.isHighSurrogate(s.charAt(end - 1))) end--;
        for (int i = 0; i < end; i++) {
            char ch = s.charAt(i);
            sb.append(ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : ch);
        }
        if (end < s.length()) sb.append('…');
    }
}
