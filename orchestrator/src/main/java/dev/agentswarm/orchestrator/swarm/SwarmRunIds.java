package dev.agentswarm.orchestrator.swarm;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The run ids of a cluster's swarms. A run id comes from whichever member sends a {@link SwarmEntity}
 * message and names the swarm's folder on the node that runs it, so it is checked against a strict
 * pattern before anything is opened: letters, digits, {@code _} and {@code -}, starting with a letter
 * or digit, at most {@value #MAX_LENGTH} characters. No dot, no separator: neither {@code ../x} nor
 * {@code /etc/x} can name a folder outside the swarms' folder. A new id carries 128 random bits, so two
 * clients never share a swarm (16 bits before: two clients in the same second met one in 65,536).
 */
public final class SwarmRunIds {

    public static final int MAX_LENGTH = 128;

    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0," + (MAX_LENGTH - 1) + "}");

    private static final SecureRandom RANDOM = new SecureRandom();

    private SwarmRunIds() {}

    /** Null when {@code runId} is a valid run id, else why not (naming the id and the rule). */
    public static String problem(String runId) {
        if (runId == null || runId.isEmpty()) return "a swarm's run id is empty";
        if (ALLOWED.matcher(runId).matches()) return null;
        String shown = runId.length() > 80 ? runId.substring(0, 80) + "…" : runId;
        return "run id '" + shown + "' refused: a run id is 1-" + MAX_LENGTH + " letters, digits, '_' or '-', starting with a"
                + " letter or digit (it names the swarm's folder, so no '.', '/' or '\\')";
    }

    /** {@code runId}, or an {@link IllegalArgumentException} saying why it is not a run id. */
    public static String check(String runId) {
        String problem = problem(runId);
        if (problem != null) throw new IllegalArgumentException(problem);
        return runId;
    }

    /** {@code prefix} followed by 128 random bits in hex: {@code swarm-20261126-171500-3fa2…} (32 hex digits). */
    public static String random(String prefix) {
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        return check(prefix + "-" + HexFormat.of().formatHex(bits));
    }
}
