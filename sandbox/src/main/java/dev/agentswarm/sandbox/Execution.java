package dev.agentswarm.sandbox;

/**
 * What one run of a program gave: its exit status, its output (each stream capped, the cut marked),
 * how long it took and which limit stopped it, if one did.
 */
public record Execution(int exitCode, String stdout, String stderr, boolean stdoutCut, boolean stderrCut, long wallMillis,
                        Limit limit) {

    /** What stopped a program before it finished by itself. */
    public enum Limit {
        NONE("finished"),
        WALL_TIME("killed at the wall-clock limit"),
        CPU_TIME("killed at the CPU-time limit"),
        MEMORY("ran out of its memory limit"),
        FILE_SIZE("exceeded the file-size limit"),
        OUTPUT("output beyond the cap was dropped");

        public final String description;

        Limit(String description) {
            this.description = description;
        }
    }

    public boolean ok() {
        return exitCode == 0 && limit == Limit.NONE;
    }
}
