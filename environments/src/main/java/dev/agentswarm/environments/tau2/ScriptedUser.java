package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.environment.ConversationPartner;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A deterministic τ² customer for tests, oracle runs and benchmarks: it opens with its reason for calling
 * and what it knows; while its task has actions for the user (telecom: toggle roaming, reboot the phone),
 * each message of the agent gets the next one done on the user's own tools and reported; then it agrees
 * when the agent asks it to confirm, and otherwise thanks the agent and ends the conversation with τ²'s
 * {@code ###STOP###}. Real evaluations play the user with a model ({@code --user-endpoint}).
 */
final class ScriptedUser implements ConversationPartner {

    static final String GREETING = "Hi! How can I help you today?";
    static final String STOP = "###STOP###";

    private final JsonNode task;
    private final Tau2Episode episode;
    private boolean opened;

    ScriptedUser(JsonNode task, Tau2Episode episode) {
        this.task = task;
        this.episode = episode;
    }

    @Override
    public String greeting() {
        return GREETING;
    }

    @Override
    public CompletionStage<Reply> reply(String agentMessage) {
        episode.agentSaid(agentMessage);
        String text;
        boolean ends = false;
        String done = opened ? episode.runNextUserAction() : null;
        if (!opened) {
            opened = true;
            text = opening();
        } else if (done != null) {
            text = "I did that. My phone says: " + done;
        } else if (asksToConfirm(agentMessage)) {
            text = "Yes, please go ahead.";
        } else {
            text = "That is all, thank you. " + STOP;
            ends = true;
        }
        episode.userSaid(text);
        return CompletableFuture.completedFuture(new Reply(text, ends));
    }

    private String opening() {
        JsonNode instructions = task.path("user_scenario").path("instructions");
        if (instructions.isTextual()) return instructions.asText();
        StringBuilder sb = new StringBuilder(instructions.path("reason_for_call").asText());
        String known = instructions.path("known_info").asText("");
        if (!known.isBlank()) sb.append(' ').append(known);
        return sb.toString().strip();
    }

    /** A question that asks for the user's go-ahead (τ²'s policies make the agent ask before any write). */
    private static boolean asksToConfirm(String message) {
        String m = message.toLowerCase(Locale.ROOT);
        if (!m.contains("?")) return false;
        return m.contains("confirm") || m.contains("yes/no") || m.contains("(yes") || m.contains("proceed");
    }
}
