package dev.agentswarm.testkit;

import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.core.protocol.Turn;

/** Human-readable renderings of trajectories for test failures and the CLI. */
public final class Trajectories {

    private Trajectories() {}

    public static String render(Trajectory t) {
        StringBuilder sb = new StringBuilder();
        sb.append("episode ").append(t.episodeId()).append(" task ").append(t.taskId()).append(": ")
                .append(t.stopReason());
        if (t.finalAnswer() != null) sb.append(", answer '").append(t.finalAnswer()).append('\'');
        if (t.error() != null) sb.append(", error: ").append(t.error());
        sb.append('\n');
        for (Turn turn : t.turns()) {
            sb.append("  [").append(turn.index()).append("] ").append(turn.role().wire()).append(": ")
                    .append(oneLine(turn.text(), 300)).append('\n');
            for (String e : turn.formatErrors()) sb.append("      format error: ").append(oneLine(e, 200)).append('\n');
        }
        return sb.toString();
    }

    /** {@code s} on one line, cut to {@code max} characters with a marked ellipsis. */
    public static String oneLine(String s, int max) {
        String flat = s.replace("\n", "\\n");
        return flat.length() <= max ? flat : flat.substring(0, max) + "…";
    }
}
