package dev.agentswarm.environments.sql;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.core.protocol.Task;
import dev.agentswarm.core.protocol.ToolCall;
import dev.agentswarm.environments.Noise;
import dev.agentswarm.environments.Oracle;
import java.util.ArrayList;
import java.util.List;

/**
 * Solves a SQL task the way a careful agent would, through the real tools: runs the gold statement
 * (metadata {@code sql}) with {@code execute_sql}, reads the values from the tool's reply in the
 * conversation (a {@link ResultTable}), commits them with {@code commit_final_answer} (a
 * modification commits {@code ["done"]}), then closes with a short message. With noise: a wasted
 * {@code SELECT COUNT(*)} first, a wrong first call ({@code DESCRIBE}, MySQL's habit, which SQLite
 * refuses) corrected after its error, and filler in the thoughts.
 */
final class SqlOracle implements Oracle {


    @Override
    public Step next(Task task, List<Message> conversation, Noise noise) {
        String sql = task.metadata().get(SqlTasks.SQL);
        if (sql == null) throw new IllegalArgumentException("SQL task " + task.id() + " has no gold statement (metadata \"sql\")");
        String table = TableHash.quote(SqlTable.fromJson(task.metadata().get(SqlTable.METADATA_KEY), "task " + task.id()).get(0).name());
        boolean modification = AnswerMatcher.isModification(task.metadata().get(SqlTasks.TYPE));
        String filler = noise.applies(noise.filler(), task.id(), "filler") ? Noise.FILLER : "";

        List<Step> plan = new ArrayList<>();
        if (noise.applies(noise.wastedCall(), task.id(), "wasted")) {
            plan.add(Step.call(filler + "First, how many rows does the table have?", sql("w", "SELECT COUNT(*) FROM " + table)));
        }
        String goldThought = modification ? "I will make the change the question asks for." : "I will run the query that answers the question.";
        if (noise.applies(noise.wrongFirstCall(), task.id(), "wrong")) {
            plan.add(Step.call(filler + "Let me look at the table's columns first.", sql("x", "DESCRIBE " + table)));
            goldThought = "DESCRIBE is MySQL and this database is SQLite; the columns are given in the question anyway. " + goldThought;
        }
        plan.add(Step.call(filler + goldThought, sql("g", sql)));
        int moves = Oracle.moves(conversation);
        if (moves < plan.size()) return plan.get(moves);

        if (moves == plan.size()) {
            List<String> answers;
            String thought;
            if (modification) {
                answers = List.of("done");
                thought = "The change is made; committing.";
            } else {
                ResultTable.Parsed result = ResultTable.parse(Oracle.lastObservation(conversation));
                answers = result == null ? List.of() : result.values();
                thought = "The query returned the answer; committing it.";
            }
            return Step.call(filler + thought, commit(answers));
        }
        return Step.answer(filler + "The answer is committed.", "Done.");
    }

    private static ToolCall sql(String id, String query) {
        ObjectNode args = Json.object();
        args.put("query", query);
        return new ToolCall(id, SqlTools.EXECUTE_SQL, args);
    }

    private static ToolCall commit(List<String> answers) {
        ObjectNode args = Json.object();
        ArrayNode a = args.putArray("answers");
        answers.forEach(a::add);
        return new ToolCall("a", SqlTools.COMMIT_FINAL_ANSWER, args);
    }
}
