package dev.agentswarm.environments.multihop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.JsonRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads HotpotQA records (the official JSON array, or JSON lines) into tasks for the distractor
 * setting: the question's ten paragraphs become its corpus, paragraph {@code p}'s sentence {@code s}
 * cited as {@code [p.s]}, and the gold support is the official {@code (title, sentence)} facts. The
 * oracle's plan: search the question, then each supporting page it has not seen, by title.
 */
final class HotpotTasks {

    /** Separates title and sentence number in a support unit, as HotpotQA's scorer pairs them. */
    static final char FACT_SEPARATOR = '\u001f';

    private HotpotTasks() {}

    static String fact(String title, int sentence) {
        return title + FACT_SEPARATOR + sentence;
    }

    /** The facts cited keys stand for: {@code [p.s]} is one, a bare {@code [p]} every sentence of page p. */
    static List<String> facts(List<String> cited, List<Passage> passages) {
        Set<String> facts = new LinkedHashSet<>();
        for (String key : cited) {
            int dot = key.indexOf('.');
            String page = dot < 0 ? key : key.substring(0, dot);
            String sentence = dot < 0 ? null : key.substring(dot + 1);
            // A key no page has (or a number too long to be one) is cited but supports nothing.
            if (page.length() > 6 || (sentence != null && sentence.length() > 6)) continue;
            int p = Integer.parseInt(page);
            if (p >= passages.size()) continue;
            Passage passage = passages.get(p);
            if (sentence != null) facts.add(fact(passage.title(), Integer.parseInt(sentence)));
            else for (int s = 0; s < passage.sentences().size(); s++) facts.add(fact(passage.title(), s));
        }
        return new ArrayList<>(facts);
    }

    static Task task(JsonRecords.Located r, String suite, String split) {
        String id = r.text("_id");
        String where = r.where() + " (" + id + ")";
        String question = r.text("question");
        List<Passage> passages = new ArrayList<>();
        Map<String, Integer> position = new LinkedHashMap<>();
        for (JsonNode c : r.array("context")) {
            String at = where + " context[" + passages.size() + "]";
            if (!c.isArray() || c.size() != 2 || !c.get(1).isArray()) {
                throw new IllegalArgumentException(at + ": must be [title, [sentences]]");
            }
            List<String> sentences = new ArrayList<>();
            c.get(1).forEach(s -> sentences.add(s.asText()));
            String title = c.get(0).asText();
            position.putIfAbsent(title, passages.size()); // the scorer pairs facts by title: the first page of a title
            passages.add(new Passage(Integer.toString(passages.size()), title, sentences));
        }
        if (passages.isEmpty()) throw new IllegalArgumentException(where + ": field \"context\" is empty");

        List<String> support = new ArrayList<>();
        List<String> cite = new ArrayList<>();
        Set<String> titles = new LinkedHashSet<>();
        for (JsonNode f : r.array("supporting_facts")) {
            String at = where + " supporting_facts[" + support.size() + "]";
            if (!f.isArray() || f.size() != 2 || !f.get(1).canConvertToInt()) {
                throw new IllegalArgumentException(at + ": must be [title, sentence number]");
            }
            String title = f.get(0).asText();
            Integer p = position.get(title);
            if (p == null) throw new IllegalArgumentException(at + ": title \"" + title + "\" is not in the context");
            support.add(fact(title, f.get(1).asInt()));
            cite.add(p + "." + f.get(1).asInt());
            titles.add(title);
        }
        if (titles.isEmpty()) throw new IllegalArgumentException(where + ": field \"supporting_facts\" is empty");

        List<HopTask.Step> steps = new ArrayList<>();
        for (String title : titles) {
            String key = Integer.toString(position.get(title));
            // The first search is the question itself; the pages it did not bring up are searched by title.
            String query = steps.isEmpty() ? question : title;
            String words = title + " " + passages.get(position.get(title)).text();
            steps.add(new HopTask.Step("I need the page on " + title + ".", query,
                    steps.isEmpty() ? List.of(title, words) : List.of(words), title, "", List.of(key)));
        }
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Task.SUITE, suite);
        meta.put(Task.SPLIT, split);
        meta.put(HopTask.HOPS, Integer.toString(steps.size()));
        meta.put(HopTask.TYPE, r.node().path("type").asText("—"));
        meta.put(HopTask.STEPS, HopTask.stepsJson(steps));
        meta.put(HopTask.SUPPORT, HopTask.stringsJson(support));
        meta.put(HopTask.CITE, HopTask.stringsJson(cite));
        meta.put(HopTask.ALIASES, HopTask.stringsJson(List.of()));
        meta.put(HopTask.PASSAGES, HopTask.passagesJson(passages));
        return new Task(id, question, r.text("answer"), meta);
    }
}
