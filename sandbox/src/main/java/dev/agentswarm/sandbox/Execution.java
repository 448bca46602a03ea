package dev.agentswarm.sandbox;

/**
 * What one run of a program gave: its exit status, its output (each stream capped, the cut marked),
 * how long it took and which limit stopped it, if one did.
 */
public record Execution(int exitCode, String stdout, String stderr, boolean stdoutCut, boolean stderrCut, long wallMillis,
                        Limit limit) {

    /** What stopped a program before it finished by itself. */
    public enum Limit {
        NONE,
        /** Killed, with its whole process tree, at the wall-clock limit. */
        WALL_TIME,
        /** Killed by the kernel at the CPU-seconds rlimit (SIGXCPU, or SIGKILL at the hard limit). */
        CPU_TIME,
        /** An allocation failed at the address-space rlimit. */
        MEMORY,
        /** A write failed at the file-size rlimit. */
        FILE_SIZE,
        /** It finished, but its output went past the cap and the rest was dropped. */
        OUTPUT
    }

    public boolean ok() {
        return exitCode == 0 && limit == Limit.NONE;
    }
}
