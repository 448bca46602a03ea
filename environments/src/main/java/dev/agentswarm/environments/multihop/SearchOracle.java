package dev.agentswarm.environments.multihop;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Role;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Answers a multi-hop question the way a careful searcher does, with the task's decomposition as its
 * plan: one search per hop, naming the entity the previous hop found, until the results have shown
 * every passage that states a hop (a hop whose passage an earlier search already showed needs no
 * search of its own). Should a query miss its passage, it searches for the passage's title. Then it
 * answers and cites the supporting passages. With noise it first searches the whole question (a
 * wasted call), or first sends the hop's relation words without the entity (a wrong call it then
 * corrects), and pads its thoughts.
 */
final class SearchOracle implements Oracle {

    /** A result's header line, {@code [8] Title}. */
    private static final java.util.regex.Pattern RESULT_HEADER = java.util.regex.Pattern.compile("(?m)^\\[(\\d+)] ");
    private static final String FILLER = "Alright, let me go step by step and be careful to check each fact. ";

    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        List<HopTask.Step> steps = HopTask.steps(task);
        if (steps.isEmpty()) throw new IllegalArgumentException("task " + task.id() + " has an empty decomposition");
        List<String> results = resultsPerMove(conversation);
        // The moves so far were this oracle's own: replaying them gives the queries it sent, whatever
        // the format did to the messages.
        List<String> issued = new ArrayList<>();
        for (int move = 0; move < results.size(); move++) {
            for (ToolCall c : decide(task, steps, noise, results.subList(0, move), issued).calls()) {
                issued.add(c.arguments().path("query").asText());
            }
        }
        return decide(task, steps, noise, results, issued);
    }

    /** The next move after {@code results} (what each earlier move brought back), having sent {@code issued}. */
    private static Step decide(Task task, List<HopTask.Step> steps, Noise noise, List<String> results, List<String> issued) {
        String filler = noise.applies(noise.filler(), task.id(), "filler") ? FILLER : "";
        String vague = steps.get(0).query().replace(steps.get(0).topic(), "").strip();
        boolean wrongFirst = noise.applies(noise.wrongFirstCall(), task.id(), "wrong") && !vague.isEmpty();
        List<Step> opening = new ArrayList<>();
        if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
            opening.add(Step.call(filler + "Let me search for the whole question first.", search("w", task.prompt())));
        }
        if (wrongFirst) opening.add(Step.call(filler + "I will look this up.", search("x", vague)));
        int moves = results.size();
        if (moves < opening.size()) return opening.get(moves);

        Set<String> shown = shownKeys(String.join("\n", results));
        Set<String> shownBefore = shownKeys(String.join("\n", results.subList(0, Math.max(0, moves - 1))));
        // What the last results settled, said before the next move: the chain of the demonstration.
        StringBuilder thought = new StringBuilder(filler);
        if (wrongFirst && moves == opening.size()) thought.append("That was too vague: I must name the entity. ");
        for (HopTask.Step s : steps) {
            if (!shown.containsAll(s.support())) break; // narrate the chain in order, up to the first gap
            if (shownBefore.containsAll(s.support())) continue;
            // A hop with an answer states it; a page-finding hop (HotpotQA's) says the page is found.
            if (s.answer().isBlank()) thought.append("Found the page on ").append(s.topic()).append(". ");
            else thought.append(s.ask()).append(' ').append(s.answer()).append(". ");
        }
        for (HopTask.Step s : steps) {
            if (shown.containsAll(s.support())) continue;
            if (!issued.contains(s.query())) {
                return Step.call(thought + "Next: " + s.ask() + " I will search for it.", search("s" + moves, s.query()));
            }
            for (String fallback : s.fallbacks()) {
                if (!issued.contains(fallback)) {
                    return Step.call(thought + "The results did not show it; searching for the page itself.", search("f" + moves, fallback));
                }
            }
            // Neither query found the passage: answer with what was found rather than search forever.
            break;
        }
        List<String> cite = new ArrayList<>();
        for (String key : HopTask.strings(task, HopTask.CITE)) {
            String passage = key.contains(".") ? key.substring(0, key.indexOf('.')) : key;
            if (shown.contains(passage)) cite.add(key);
        }
        return Step.answer(thought + "The passages answer every hop, so the answer is " + task.answer() + ".",
                CitedAnswer.write(task.answer(), cite));
    }

    /** The results each assistant move brought back, in order ("" for a move with none yet). */
    static List<String> resultsPerMove(List<Message> conversation) {
        List<String> results = new ArrayList<>();
        for (Message m : conversation) {
            if (m.role() == Role.ASSISTANT) {
                results.add("");
            } else if (!results.isEmpty() && (m.role() == Role.TOOL || m.role() == Role.USER)) {
                // Results come back as tool messages, or as user messages in formats without a tool role.
                int last = results.size() - 1;
                results.set(last, results.get(last) + m.content() + "\n");
            }
        }
        return results;
    }

    /** The passage keys the results have shown ({@code [8] Title} headers). */
    static Set<String> shownKeys(CharSequence results) {
        Set<String> keys = new HashSet<>();
        var m = RESULT_HEADER.matcher(results);
        while (m.find()) keys.add(m.group(1));
        return keys;
    }

    private static ToolCall search(String id, String query) {
        ObjectNode args = Json.object();
        args.put("query", query);
        return new ToolCall(id, SearchTool.NAME, args);
    }
}
