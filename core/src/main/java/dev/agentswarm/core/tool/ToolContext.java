package dev.agentswarm.core.tool;

/**
 * Where a tool call comes from: the episode, the turn, the position of the call in that turn
 * (stable keys for record/replay whatever the interleaving), its id and its time limit.
 */
public record ToolContext(String episodeId, int turn, int callIndex, String callId, long timeoutMillis) {}
