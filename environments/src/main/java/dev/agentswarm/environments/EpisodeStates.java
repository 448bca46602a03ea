package dev.agentswarm.environments;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-episode state of a suite's tools, keyed by episode id: put when the episode's environment
 * opens, removed when it closes. A tool call for an episode with no open environment fails with a
 * message that says so (a tool offered outside its suite's episodes).
 */
public final class EpisodeStates<S> {

    private final String suite;
    private final Map<String, S> states = new ConcurrentHashMap<>();

    public EpisodeStates(String suite) {
        this.suite = suite;
    }

    public void put(String episodeId, S state) {
        if (states.putIfAbsent(episodeId, state) != null) {
            throw new IllegalStateException("episode " + episodeId + " already has an open " + suite + " environment");
        }
    }

    public S get(String episodeId) {
        S s = states.get(episodeId);
        if (s == null) {
            throw new IllegalStateException("no " + suite + " environment is open for episode " + episodeId
                    + "; this tool only serves episodes of " + suite + " tasks");
        }
        return s;
    }

    public S remove(String episodeId) {
        return states.remove(episodeId);
    }

    public int open() {
        return states.size();
    }
}
