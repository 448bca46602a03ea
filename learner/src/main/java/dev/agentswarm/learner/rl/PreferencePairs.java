package dev.agentswarm.learner.rl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.Trajectory;
import dev.agentswarm.policy.chat.ChatFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Where DPO's pairs come from: a TRL-format JSONL file ({@code prompt} / {@code chosen} /
 * {@code rejected}, each a string or a list of {@code {role, content}} messages), or the rollouts
 * of one task, the best-rewarded first completion chosen over the worst when their rewards differ
 * by at least {@code min-reward-gap}. A completion is the assistant's tokens and its closing
 * {@code <|im_end|>}, as the chat template trains them.
 */
public final class PreferencePairs {

    private final ChatFormat template;

    public PreferencePairs(ChatFormat template) {
        this.template = template;
    }

    /** Every pair of a TRL preference file; a malformed line fails with its line number and what is wrong. */
    public List<PreferencePair> load(Path file) {
        List<PreferencePair> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                try {
                    JsonNode r = Json.parse(line);
                    List<Message> prompt = messages(r, "prompt", Role.USER);
                    out.add(pair(prompt, completion(r, "chosen"), completion(r, "rejected")));
                } catch (IOException | IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + ":" + n + ": " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read preference file " + file + ": " + e.getMessage(), e);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("preference file " + file + " holds no pairs");
        return out;
    }

    /** A pair from the prompt messages and the two assistant answers. */
    public PreferencePair pair(List<Message> prompt, String chosen, String rejected) {
        return new PreferencePair(template.prompt(prompt, List.of()), completionIds(prompt, chosen), completionIds(prompt, rejected));
    }

    /** A rollout's scored reward, the default ranking. */
    private static final ToDoubleFunction<Trajectory> REWARD = t -> t.reward().total();

    /** A group's best- and worst-rewarded rollouts. */
    public record Extremes(Trajectory best, Trajectory worst) {

        /**
         * Among the scored rollouts of {@code group} that answered at least once and pass
         * {@code usable}: the best and the worst, when their rewards differ by at least {@code minGap}.
         */
        public static Optional<Extremes> of(List<Trajectory> group, double minGap, Predicate<Trajectory> usable) {
            return of(group, minGap, usable, REWARD);
        }

        /** The same, ranked by {@code score} instead of the reward. */
        public static Optional<Extremes> of(List<Trajectory> group, double minGap, Predicate<Trajectory> usable,
                                            ToDoubleFunction<Trajectory> score) {
            List<Trajectory> scored = group.stream().filter(t -> t.reward() != null && !t.assistantTurns().isEmpty() && usable.test(t))
                    .sorted(Comparator.comparingDouble(t -> -score.applyAsDouble(t))).toList();
            if (scored.size() < 2) return Optional.empty();
            Trajectory best = scored.get(0);
            Trajectory worst = scored.get(scored.size() - 1);
            return score.applyAsDouble(best) - score.applyAsDouble(worst) < minGap ? Optional.empty() : Optional.of(new Extremes(best, worst));
        }
    }

    /**
     * At most one pair per group (the rollouts of one task): its best and worst first completions,
     * when their rewards differ by at least {@code minGap}. They share their prompt, so only the
     * first assistant turn is compared.
     */
    public static List<PreferencePair> fromRollouts(List<List<Trajectory>> groups, double minGap, TurnPrompts prompts) {
        return fromRollouts(groups, minGap, prompts, REWARD);
    }

    /** The same, with rollouts ranked by {@code score} (e.g. the reward less a penalty for filler). */
    public static List<PreferencePair> fromRollouts(List<List<Trajectory>> groups, double minGap, TurnPrompts prompts,
                                                    ToDoubleFunction<Trajectory> score) {
        List<PreferencePair> out = new ArrayList<>();
        for (List<Trajectory> g : groups) {
            Extremes e = Extremes.of(g, minGap, t -> t.assistantTurns().get(0).tokenIds().length > 0, score).orElse(null);
            if (e == null) continue;
            int[] prompt = prompts.of(e.best()).get(0);
            if (!Arrays.equals(prompt, prompts.of(e.worst()).get(0))) continue; // different prompts are not a preference
            out.add(new PreferencePair(prompt, e.best().assistantTurns().get(0).tokenIds(), e.worst().assistantTurns().get(0).tokenIds()));
        }
        return out;
    }

    private int[] completionIds(List<Message> prompt, String answer) {
        List<Message> all = new ArrayList<>(prompt);
        all.add(Message.assistant(answer));
        ChatFormat.Rendered r = template.conversation(all, List.of());
        int last = r.lossMask().length - 1;
        while (last >= 0 && r.lossMask()[last] == 0) last--;
        int first = last;
        while (first > 0 && r.lossMask()[first - 1] == 1) first--;
        return Arrays.copyOfRange(r.ids(), first, last + 1);
    }

    private static List<Message> messages(JsonNode r, String field, Role plainRole) {
        JsonNode v = r.get(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException("no \"" + field + "\"");
        if (v.isTextual()) return List.of(new Message(plainRole, v.asText(), null, null, null));
        if (!v.isArray() || v.isEmpty()) throw new IllegalArgumentException("\"" + field + "\" must be a string or a list of messages");
        List<Message> out = new ArrayList<>();
        for (JsonNode m : v) {
            String role = m.path("role").asText("");
            Role parsed = switch (role) {
                case "system" -> Role.SYSTEM;
                case "user" -> Role.USER;
                case "assistant" -> Role.ASSISTANT;
                default -> throw new IllegalArgumentException("\"" + field + "\": unknown role \"" + role + "\"");
            };
            out.add(new Message(parsed, m.path("content").asText(""), null, null, null));
        }
        return out;
    }

    /** A completion: a string, or a list whose last message is the assistant's answer. */
    private static String completion(JsonNode r, String field) {
        List<Message> m = messages(r, field, Role.ASSISTANT);
        Message last = m.get(m.size() - 1);
        if (last.role() != Role.ASSISTANT) throw new IllegalArgumentException("\"" + field + "\" must end with an assistant message");
        return last.content();
    }
}
