package dev.agentswarm.core.protocol;

/** Who speaks a message or a turn, with the wire names of the chat-completions API. */
public enum Role {
    SYSTEM("system"), USER("user"), ASSISTANT("assistant"), TOOL("tool");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Role fromWire(String s) {
        for (Role r : values()) {
            if (r.wire.equals(s)) return r;
        }
        throw new IllegalArgumentException("unknown role '" + s + "' (expected system, user, assistant or tool)");
    }
}
