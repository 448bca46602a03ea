package dev.agentswarm.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.CborSerializable;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What an episode run inside a swarm says to the swarm that runs it, wherever either lives: an
 * orchestrator episode's {@code spawn_subagents} calls, and every episode's progress after each
 * turn (for live views and for budgets counted while sub-agents run). It lives in core so that
 * workers never import the orchestrator module: the swarm's address travels in
 * {@link WorkerProtocol.RunEpisode#swarm()}.
 */
public final class SwarmProtocol {

    /** The tool an orchestrator episode calls to run a plan of sub-agents. */
    public static final String SPAWN_TOOL = "spawn_subagents";

    private SwarmProtocol() {}

    public interface Command extends CborSerializable {}

    /**
     * An orchestrator episode asks to run a plan (the call's arguments, unchecked); the swarm replies
     * once, with the observation the episode reads back: the sub-agents' results, or what to fix.
     */
    public record SpawnSubAgents(String episodeId, int turn, String callId, JsonNode arguments,
                                 ActorRef<SpawnOutcome> replyTo) implements Command {}

    /** The observation for a {@link SpawnSubAgents} call; {@code ok} is false for a refused plan or an exhausted budget. */
    public record SpawnOutcome(String observation, boolean ok) implements CborSerializable {}

    /**
     * An episode finished a turn: its policy turns so far, what it did last (a tool call, an answer,
     * an error) and the tokens it has generated so far.
     */
    public record EpisodeProgress(String episodeId, int turns, String lastAction, int tokens) implements Command {}

    /**
     * An episode of a swarm recorded policy turn {@code turn} (1-based): its completion and tool results;
     * before a {@code spawn_subagents} call, also the completion alone first ({@code record.results()}
     * null), since that call runs as long as its round; in a turn that calls a tool that is not
     * idempotent, also the results so far each time one of those calls ends (after {@link RecordBeforeCalls}). A durable swarm journals these, so the episode can
     * resume after them ({@link EpisodeHistory}).
     */
    public record StepRecorded(String episodeId, int turn, EpisodeHistory.Step record) implements Command {}

    /**
     * Turn {@code turn} asks for a call that must not run twice (its tool is not idempotent): the swarm
     * records the completion ({@code record.results()} null) and replies {@link Recorded} once its journal
     * holds it (at once when it keeps none). The episode starts the turn's calls only then, so after a
     * crash the journal shows the calls may have run, and none is run again unseen.
     */
    public record RecordBeforeCalls(String episodeId, int turn, EpisodeHistory.Step record, ActorRef<Recorded> replyTo)
            implements Command {}

    /** Turn {@code turn} of {@code episodeId} is in the swarm's journal. */
    public record Recorded(String episodeId, int turn) implements CborSerializable {}
}
