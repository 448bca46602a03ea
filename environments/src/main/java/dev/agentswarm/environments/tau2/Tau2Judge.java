package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.concurrent.Stages;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.protocol.CompletionRequest;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.SamplingParams;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * τ²'s natural-language assertions, graded by a model as τ²'s evaluator grades them: the whole
 * conversation ({@code role: content} per message, tool messages included) and the expected outcomes;
 * the model answers JSON {@code {"results": [{"expectedOutcome", "reasoning", "metExpectation"}]}}
 * and the component is 1 when every outcome was met. An answer that is not that JSON fails the
 * grading (τ² retries such a run and counts it as an infrastructure error).
 */
final class Tau2Judge {

    /** τ²'s judge instructions, in our words. */
    static final String SYSTEM = """
            You are grading a conversation between a customer service agent and a customer against a list of expected
            outcomes. Judge each expected outcome on its own, only from what the conversation shows.

            Answer with JSON only, in this form:
            {"results": [{"expectedOutcome": "<the outcome>", "reasoning": "<why it was or was not met>", "metExpectation": true or false}]}""";

    private final Policy policy;
    private final SamplingParams sampling;

    Tau2Judge(Policy policy, SamplingParams sampling) {
        this.policy = policy;
        this.sampling = sampling;
    }

    CompletionStage<Boolean> met(String episodeId, List<Tau2Message> conversation, JsonNode assertions) {
        StringBuilder prompt = new StringBuilder("conversation:\n");
        for (Tau2Message m : conversation) {
            String role = m.role().name().toLowerCase(java.util.Locale.ROOT);
            String content = m.content() != null ? m.content() : "None"; // a tool call's message has no text
            prompt.append(role).append(": ").append(content).append('\n');
        }
        prompt.append("\nexpectedOutcomes:\n").append(pythonList(assertions));
        CompletionRequest request = new CompletionRequest(episodeId + "/judge", 1,
                List.of(Message.system(SYSTEM), Message.user(prompt.toString())), List.of(), "none", sampling);
        return Stages.direct(policy.complete(request)).thenApply(c -> verdict(c.text()));
    }

    /** Every result met; the model's answer may wrap the JSON in a fence or words. */
    static boolean verdict(String text) {
        String t = text == null ? "" : text.strip();
        int from = t.indexOf('{');
        int to = t.lastIndexOf('}');
        if (from < 0 || to < from) throw new IllegalStateException("the judge did not answer JSON: " + snippet(t));
        JsonNode results;
        try {
            results = Json.MAPPER.readTree(t.substring(from, to + 1)).get("results");
        } catch (Exception e) {
            throw new IllegalStateException("the judge's answer is not JSON: " + snippet(t));
        }
        if (results == null || !results.isArray()) throw new IllegalStateException("the judge's answer has no \"results\" list: " + snippet(t));
        for (JsonNode r : results) if (!r.path("metExpectation").asBoolean(false)) return false;
        return true;
    }

    private static String pythonList(JsonNode strings) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < strings.size(); i++) {
            if (i > 0) sb.append(", ");
            String s = strings.get(i).asText();
            sb.append('\'').append(s.replace("\\", "\\\\").replace("'", "\\'")).append('\'');
        }
        return sb.append(']').toString();
    }

    private static String snippet(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
