package dev.agentswarm.app;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * Whether a host that a command is told to listen on is one only this machine reaches: the rule that
 * {@code swarm serve} (no API key needed) and {@code swarm node} (plain TCP allowed) share.
 *
 * <p>It is judged from the text alone: {@code localhost}, an IPv4 address in 127.0.0.0/8, or an IPv6
 * literal that is the loopback ({@code ::1} in any spelling, bracketed or not). No name is looked up:
 * what a name resolves to depends on {@code /etc/hosts} and DNS, which can answer differently when the
 * server binds than when it was checked (or hang the start), and a safety check must not rest on them.
 * A name that happens to resolve to the loopback is therefore treated as reachable from elsewhere.
 */
public final class LoopbackHost {

    private static final Pattern IPV4_LOOPBACK = Pattern.compile("127(\\.\\d{1,3}){3}");

    private LoopbackHost() {}

    public static boolean is(String host) {
        String h = host.strip();
        if (h.equalsIgnoreCase("localhost") || IPV4_LOOPBACK.matcher(h).matches()) return true;
        if (!h.contains(":")) return false;
        String literal = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
        try {
            // Bracketed, the text is parsed as an IPv6 literal or refused: never looked up as a name.
            return InetAddress.getByName("[" + literal + "]").isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
