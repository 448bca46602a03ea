package dev.agentswarm.sandbox;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Locale;

/** How untrusted code runs: isolation, limits and concurrency ({@code agentswarm.sandbox}). */
public record SandboxSettings(Isolation isolation, String bwrapPath, Duration wallTimeout, int cpuSeconds, long memoryBytes,
                              int processes, long fileSizeBytes, long workSizeBytes, int maxOutputBytes, int slots, int firstUid,
                              int sessions, int warmSessions, int sessionCpuSeconds, Duration sessionIdleTimeout,
                              java.util.List<String> readOnlyBinds, boolean cgroups) {

    /** bubblewrap namespaces, or none at all (explicit, and warned about). */
    public enum Isolation { BWRAP, NONE }

    public SandboxSettings {
        if (wallTimeout.isNegative() || wallTimeout.isZero()) throw new IllegalArgumentException("sandbox.wall-timeout must be > 0");
        if (cpuSeconds < 1) throw new IllegalArgumentException("sandbox.cpu-seconds must be >= 1, got " + cpuSeconds);
        if (memoryBytes < (16 << 20)) throw new IllegalArgumentException("sandbox.memory must be >= 16MiB, got " + memoryBytes);
        if (processes < 2) throw new IllegalArgumentException("sandbox.processes must be >= 2, got " + processes);
        if (fileSizeBytes < 1 || workSizeBytes < 4096) throw new IllegalArgumentException("sandbox.file-size and work-size must be positive");
        if (maxOutputBytes < 16) throw new IllegalArgumentException("sandbox.max-output must be >= 16 bytes, got " + maxOutputBytes);
        if (slots < 1) throw new IllegalArgumentException("sandbox.slots must be >= 1, got " + slots);
        if (firstUid < 1000) throw new IllegalArgumentException("sandbox.first-uid must be >= 1000 (not a system user), got " + firstUid);
        if (sessions < 1) throw new IllegalArgumentException("sandbox.sessions must be >= 1, got " + sessions);
        if (warmSessions < 0 || warmSessions > sessions) {
            throw new IllegalArgumentException("sandbox.warm-sessions must be between 0 and sessions (" + sessions + "), got " + warmSessions);
        }
        if (sessionCpuSeconds < cpuSeconds) {
            throw new IllegalArgumentException("sandbox.session-cpu-seconds must be >= cpu-seconds (" + cpuSeconds + "), got " + sessionCpuSeconds);
        }
        if (sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero()) {
            throw new IllegalArgumentException("sandbox.session-idle-timeout must be > 0");
        }
        readOnlyBinds = java.util.List.copyOf(readOnlyBinds);
        for (String bind : readOnlyBinds) {
            if (!bind.startsWith("/") || bind.contains("..") || bind.equals("/")) {
                throw new IllegalArgumentException("sandbox.ro-binds takes absolute host folders other than /, got \"" + bind + "\"");
            }
        }
    }

    public static SandboxSettings fromConfig(Config c) {
        Isolation isolation;
        try {
            isolation = Isolation.valueOf(c.getString("isolation").toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sandbox.isolation must be bwrap or none, got " + c.getString("isolation"));
        }
        return new SandboxSettings(isolation, c.getString("bwrap-path"), c.getDuration("wall-timeout"), c.getInt("cpu-seconds"),
                c.getBytes("memory"), c.getInt("processes"), c.getBytes("file-size"), c.getBytes("work-size"),
                Math.toIntExact(c.getBytes("max-output")), c.getInt("slots"), c.getInt("first-uid"), c.getInt("sessions"),
                c.getInt("warm-sessions"), c.getInt("session-cpu-seconds"), c.getDuration("session-idle-timeout"),
                c.getStringList("ro-binds"), c.getBoolean("cgroups"));
    }
}
