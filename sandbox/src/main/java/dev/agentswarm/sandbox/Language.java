package dev.agentswarm.sandbox;

import java.util.List;

/** What a program is written in, and the command that runs its source text. */
public enum Language {
    /**
     * Debian's Python (not a user's pyenv under /root): isolated mode, no site packages from the host
     * user, unbuffered so what it printed before a limit killed it is still seen.
     */
    PYTHON(List.of("/usr/bin/python3", "-I", "-S", "-u", "-c")),
    BASH(List.of("/bin/bash", "--noprofile", "--norc", "-c"));

    /** One argument may hold this much (Linux's MAX_ARG_STRLEN, less room for the rest). */
    public static final int MAX_SOURCE_BYTES = 128 * 1024 - 1024;

    private final List<String> command;

    Language(List<String> command) {
        this.command = command;
    }

    /** The command line that runs {@code source}. */
    List<String> command(String source) {
        int bytes = source.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOURCE_BYTES) {
            throw new IllegalArgumentException("the program is " + bytes + " bytes; at most " + MAX_SOURCE_BYTES + " can be run at once");
        }
        if (source.indexOf('\0') >= 0) throw new IllegalArgumentException("the program contains a NUL byte");
        List<String> c = new java.util.ArrayList<>(command);
        c.add(source);
        return c;
    }

    public static Language parse(String name) {
        for (Language l : values()) if (l.name().equalsIgnoreCase(name.trim())) return l;
        throw new IllegalArgumentException("unknown language \"" + name + "\"; use python or bash");
    }
}
