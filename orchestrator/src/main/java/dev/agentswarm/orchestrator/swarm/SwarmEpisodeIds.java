package dev.agentswarm.orchestrator.swarm;

/**
 * How a swarm names its episodes: {@code RUN:AGENT}, with {@code #N} for attempt N > 1 —
 * {@code RUN:root}, {@code RUN:root/a}, {@code RUN:root/a#2}. Workers, policies and tools see only the
 * episode id, so whatever needs the agent or the attempt back (a scripted policy, a resumed run, a
 * benchmark) reads it from here, the one place that writes it.
 */
public final class SwarmEpisodeIds {

    private SwarmEpisodeIds() {}

    /** The episode id of attempt {@code attempt} of {@code agent} in run {@code runId}. */
    public static String of(String runId, String agent, int attempt) {
        return runId + ":" + agent + (attempt > 1 ? "#" + attempt : "");
    }

    /** The run a root orchestrator's own episode id belongs to ({@code RUN:root} → {@code RUN}). */
    public static String runIdOf(String rootEpisodeId) {
        return rootEpisodeId.endsWith(":root") ? rootEpisodeId.substring(0, rootEpisodeId.length() - ":root".length()) : rootEpisodeId;
    }

    /** The agent a swarm's episode id belongs to: {@code run-1:root/a#2} → {@code root/a}. */
    public static String agentOf(String episodeId) {
        String s = episodeId.substring(episodeId.indexOf(':') + 1);
        int hash = s.lastIndexOf('#');
        return hash < 0 ? s : s.substring(0, hash);
    }

    /** Which attempt of its agent a swarm's episode id is (1 for the first). */
    public static int attemptOf(String episodeId) {
        int hash = episodeId.lastIndexOf('#');
        return hash < 0 ? 1 : Integer.parseInt(episodeId.substring(hash + 1));
    }

    /** The agent one level up the tree ({@code root/c/x} → {@code root/c}), null for the root. */
    static String parentOf(String agent) {
        int slash = agent.lastIndexOf('/');
        return slash < 0 ? null : agent.substring(0, slash);
    }
}
