package dev.agentswarm.app.metrics;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * The node's HTTP endpoints ({@code /metrics}, {@code /alive}, {@code /ready}) from
 * {@code agentswarm.http}: off unless {@code port} is set (0 picks a free port).
 *
 * @param port empty when the endpoints are off
 */
public record HttpSettings(String host, OptionalInt port, Duration bindTimeout) {

    public static final String PORT = "agentswarm.http.port";
    public static final String HOST = "agentswarm.http.host";

    /** Reads {@code agentswarm.http}; a port that is not {@code off} or 0..65535 is refused, naming the key. */
    public static HttpSettings fromConfig(Config config) {
        Config c = config.getConfig("agentswarm.http");
        String host = c.getString("host").strip();
        if (host.isEmpty()) throw new IllegalArgumentException(HOST + " is empty: name the interface to listen on, e.g. 127.0.0.1 or 0.0.0.0");
        return new HttpSettings(host, port(c.getValue("port")), c.getDuration("bind-timeout"));
    }

    private static OptionalInt port(ConfigValue v) {
        Object raw = v.unwrapped();
        if (v.valueType() == ConfigValueType.BOOLEAN && !(Boolean) raw) return OptionalInt.empty();
        if (v.valueType() == ConfigValueType.STRING && "off".equalsIgnoreCase(((String) raw).strip())) return OptionalInt.empty();
        int port;
        try {
            port = v.valueType() == ConfigValueType.NUMBER ? ((Number) raw).intValue() : Integer.parseInt(((String) raw).strip());
            if (v.valueType() == ConfigValueType.NUMBER && ((Number) raw).doubleValue() != port) throw new NumberFormatException();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(PORT + " = " + v.render() + " is not a port: give 1-65535, 0 for a free port, or off");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(PORT + " = " + port + " is out of range: give 1-65535, 0 for a free port, or off");
        }
        return OptionalInt.of(port);
    }

    public boolean enabled() {
        return port.isPresent();
    }
}
