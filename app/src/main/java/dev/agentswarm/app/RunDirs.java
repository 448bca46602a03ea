package dev.agentswarm.app;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** Where a command's run folder goes when the user names none: {@code runs/<kind>-<date>-<time>}. */
public final class RunDirs {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private RunDirs() {}

    public static Path timestamped(String kind) {
        return Path.of("runs", stamped(kind));
    }

    /** {@code kind-<date>-<time>}, e.g. {@code swarm-20261126-171500}. */
    public static String stamped(String kind) {
        return kind + "-" + LocalDateTime.now().format(STAMP);
    }
}
