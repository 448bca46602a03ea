package dev.agentswarm.environments.multihop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.JsonRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads MuSiQue-Ans v1.0 records (official JSON lines, or a JSON array of them) into tasks: the
 * question's 20 paragraphs become its own corpus (cited by {@code idx}), the gold support is the
 * paragraphs marked {@code is_supporting} (as the official scorer takes it), and the question
 * decomposition, with {@code #k} replaced by the k-th answer, is the oracle's plan. The task id is the
 * record's, so results line up with the official prediction file. MuSiQue-Full's unanswerable
 * records are refused: their sufficiency scoring needs the answerable/unanswerable pairs.
 */
final class MusiqueTasks {

    /** {@code #2} in a sub-question: the second hop's answer. */
    private static final java.util.regex.Pattern REFERENCE = java.util.regex.Pattern.compile("#(\\d+)");

    private MusiqueTasks() {}

    static Task task(JsonRecords.Located r, String suite, String split) {
        String id = r.text("id");
        String where = r.where() + " (" + id + ")";
        if (!r.require("answerable").asBoolean()) {
            throw new IllegalArgumentException(where + ": an unanswerable record (MuSiQue-Full); this loader reads MuSiQue-Ans");
        }
        List<Passage> passages = new ArrayList<>();
        List<String> support = new ArrayList<>();
        Map<String, String> titles = new LinkedHashMap<>();
        Map<String, String> texts = new LinkedHashMap<>();
        for (JsonNode p : r.array("paragraphs")) {
            String at = where + " paragraphs[" + passages.size() + "]";
            JsonNode idx = JsonRecords.Located.require(p, "idx", at);
            if (!idx.canConvertToInt()) throw new IllegalArgumentException(at + ": field \"idx\" must be an integer");
            String key = Integer.toString(idx.asInt());
            String title = JsonRecords.Located.require(p, "title", at).asText();
            String text = JsonRecords.Located.require(p, "paragraph_text", at).asText();
            passages.add(Passage.of(key, title, text));
            texts.put(key, text);
            if (titles.put(key, title) != null) throw new IllegalArgumentException(at + ": idx " + key + " appears twice");
            if (p.path("is_supporting").asBoolean(false)) support.add(key);
        }
        if (passages.isEmpty()) throw new IllegalArgumentException(where + ": field \"paragraphs\" is empty");

        List<String> answers = new ArrayList<>();
        List<HopTask.Step> steps = new ArrayList<>();
        for (JsonNode d : r.array("question_decomposition")) {
            String at = where + " question_decomposition[" + steps.size() + "]";
            String raw = JsonRecords.Located.require(d, "question", at).asText();
            String answer = JsonRecords.Located.require(d, "answer", at).asText();
            JsonNode sup = JsonRecords.Located.require(d, "paragraph_support_idx", at);
            String key = Integer.toString(sup.asInt());
            if (!titles.containsKey(key)) throw new IllegalArgumentException(at + ": paragraph_support_idx " + key + " is not a paragraph");
            String ask = resolve(raw, answers, at);
            // "Van Hook Township >> located in ..." asks about its left side: that is the entity to name.
            int arrow = ask.indexOf(">>");
            String topic = arrow >= 0 ? ask.substring(0, arrow).strip() : "";
            String query = ask.replace(">>", " ").replaceAll("\\s+", " ").strip();
            steps.add(new HopTask.Step(arrow >= 0 ? query + "?" : ask, query,
                    List.of(titles.get(key), titles.get(key) + " " + texts.get(key)), topic, answer, List.of(key)));
            answers.add(answer);
        }
        if (steps.isEmpty()) throw new IllegalArgumentException(where + ": field \"question_decomposition\" is empty");

        List<String> aliases = new ArrayList<>();
        JsonNode a = r.node().get("answer_aliases");
        if (a != null && a.isArray()) a.forEach(n -> aliases.add(n.asText()));
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Task.SUITE, suite);
        meta.put(Task.SPLIT, split);
        meta.put(HopTask.HOPS, Integer.toString(steps.size()));
        meta.put(HopTask.TYPE, id.contains("__") ? id.substring(0, id.indexOf("__")) : steps.size() + "hop");
        meta.put(HopTask.STEPS, HopTask.stepsJson(steps));
        meta.put(HopTask.SUPPORT, HopTask.stringsJson(support));
        meta.put(HopTask.CITE, HopTask.stringsJson(support));
        meta.put(HopTask.ALIASES, HopTask.stringsJson(aliases));
        meta.put(HopTask.PASSAGES, HopTask.passagesJson(passages));
        return new Task(id, r.text("question"), r.text("answer"), meta);
    }

    /** A sub-question with its {@code #k} references replaced by the answers before it. */
    static String resolve(String question, List<String> answers, String where) {
        var m = REFERENCE.matcher(question);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            int k = Integer.parseInt(m.group(1));
            if (k < 1 || k > answers.size()) {
                throw new IllegalArgumentException(where + ": \"" + question + "\" refers to #" + k + " before it is answered");
            }
            m.appendReplacement(sb, java.util.regex.Matcher.quoteReplacement(answers.get(k - 1)));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
