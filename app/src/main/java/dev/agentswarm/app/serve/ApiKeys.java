package dev.agentswarm.app.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The API keys a server accepts as {@code Authorization: Bearer <key>} (as vLLM's {@code --api-key}).
 * Only SHA-256 digests are kept, and a presented key is compared by its digest against every key with
 * {@link MessageDigest#isEqual} (which reads every byte whatever matches): how long the check takes says
 * nothing about how much of a key was right, nor about the keys' lengths.
 */
public final class ApiKeys {

    private static final String BEARER = "bearer ";

    private final List<byte[]> digests;

    private ApiKeys(List<byte[]> digests) {
        this.digests = digests;
    }

    /** No key: every request is let in. */
    public static ApiKeys none() {
        return new ApiKeys(List.of());
    }

    /** These keys, each of which lets a request in; a key that is blank or holds whitespace is refused. */
    public static ApiKeys of(Collection<String> keys) {
        List<byte[]> d = new ArrayList<>();
        for (String k : keys) {
            if (k == null || k.isBlank() || k.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("an API key must be a non-empty word without spaces (it travels as"
                        + " \"Authorization: Bearer <key>\")");
            }
            d.add(sha256(k));
        }
        return new ApiKeys(List.copyOf(d));
    }

    /** Whether requests must bring a key. */
    public boolean required() {
        return !digests.isEmpty();
    }

    /** Whether an {@code Authorization} header's value (null when absent) names one of the keys. */
    public boolean accepts(String authorization) {
        if (!required()) return true;
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] presented = sha256(authorization.substring(BEARER.length()).strip());
        boolean match = false;
        for (byte[] d : digests) match |= MessageDigest.isEqual(d, presented); // no early exit: every key is compared
        return match;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
