package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A message of a τ² conversation as its evaluator reads it: the agent's ({@code assistant}) or the
 * user's text and tool calls, or a tool's answer to one call ({@code tool}: the call's id, who asked,
 * whether it failed).
 */
public record Tau2Message(Role role, String content, List<Call> calls, String callId, Requestor requestor, boolean error) {

    public enum Role { ASSISTANT, USER, TOOL }

    public enum Requestor {
        ASSISTANT, USER;

        static Requestor parse(String s) {
            return "user".equals(s) ? USER : ASSISTANT;
        }
    }

    /** A tool call; {@code requestor} says whose toolkit answers it. */
    public record Call(String id, String name, JsonNode arguments, Requestor requestor) {}

    public Tau2Message {
        calls = calls == null ? List.of() : List.copyOf(calls);
    }

    public static Tau2Message text(Role role, String content) {
        return new Tau2Message(role, content, List.of(), null, null, false);
    }

    public static Tau2Message calls(Role role, List<Call> calls) {
        return new Tau2Message(role, null, calls, null, null, false);
    }

    public static Tau2Message tool(String callId, String content, Requestor requestor, boolean error) {
        return new Tau2Message(Role.TOOL, content, List.of(), callId, requestor, error);
    }

    public boolean hasCalls() {
        return !calls.isEmpty();
    }
}
