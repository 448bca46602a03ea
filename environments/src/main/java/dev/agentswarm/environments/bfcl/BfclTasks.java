package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.environments.JsonRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BFCL's question and possible-answer files (JSON lines, aligned by line) as tasks: the user's message
 * is the prompt, the ground truth the answer, and the metadata carries the category, the functions as
 * BFCL wrote them and any system message of the question, so a task is whole wherever it runs.
 */
final class BfclTasks {

    static final String CATEGORY = "category";
    static final String FUNCTIONS = "functions";
    static final String SYSTEM = "system";

    private BfclTasks() {}

    /** Every task of {@code category} in {@code dir}, in file order. */
    static List<Task> load(Path dir, BfclCategory category, String suite, String split) {
        String hint = "set agentswarm.environments.bfcl.data-dir; BFCL v4's files are in ../shared/data/bfcl";
        List<JsonRecords.Located> questions = JsonRecords.read(dir.resolve(category.questionFile()), Integer.MAX_VALUE,
                "BFCL " + category.label() + " file", hint);
        List<JsonRecords.Located> answers = category.relevanceOnly() ? List.of()
                : JsonRecords.read(dir.resolve(category.answerFile()), Integer.MAX_VALUE, "BFCL " + category.label() + " answer file", hint);
        if (!category.relevanceOnly() && answers.size() != questions.size()) {
            throw new IllegalArgumentException("BFCL " + category.label() + ": " + questions.size() + " questions but " + answers.size()
                    + " possible answers in " + dir.resolve(category.answerFile()));
        }
        List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < questions.size(); i++) {
            tasks.add(task(questions.get(i), category.relevanceOnly() ? null : answers.get(i), category, suite, split));
        }
        return tasks;
    }

    private static Task task(JsonRecords.Located q, JsonRecords.Located a, BfclCategory category, String suite, String split) {
        String id = q.text("id");
        JsonNode turns = q.array("question");
        if (turns.size() != 1) {
            throw new IllegalArgumentException(q.where() + ": " + id + " has " + turns.size() + " turns; the single-turn categories have one");
        }
        StringBuilder system = new StringBuilder();
        StringBuilder user = new StringBuilder();
        for (JsonNode m : turns.get(0)) {
            String role = m.path("role").asText();
            String content = m.path("content").asText();
            StringBuilder to = role.equals("system") ? system : role.equals("user") ? user : null;
            if (to == null) throw new IllegalArgumentException(q.where() + ": " + id + " has a message of role \"" + role + "\"");
            if (!to.isEmpty()) to.append("\n\n");
            to.append(content);
        }
        if (user.isEmpty()) throw new IllegalArgumentException(q.where() + ": " + id + " has no user message");
        JsonNode functions = q.array("function");
        String answer = "";
        if (a != null) {
            String answerId = a.text("id");
            if (!answerId.equals(id)) {
                throw new IllegalArgumentException(a.where() + ": possible answer " + answerId + " is on the line of question " + id);
            }
            answer = Json.write(a.array("ground_truth"));
        }
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Task.SUITE, suite);
        meta.put(Task.SPLIT, split);
        meta.put(CATEGORY, category.label());
        meta.put(FUNCTIONS, Json.write(functions));
        if (!system.isEmpty()) meta.put(SYSTEM, system.toString());
        return new Task(id, user.toString(), answer, meta);
    }
}
