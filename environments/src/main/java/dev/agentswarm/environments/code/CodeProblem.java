package dev.agentswarm.environments.code;

import dev.agentswarm.environments.JsonRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One programming problem: write {@code entryPoint} as {@code prompt} asks; {@code tests} are the
 * hidden {@code assert CALL == LITERAL} lines it is graded on; {@code solution} is a reference
 * that passes them all (the oracle's answer).
 */
public record CodeProblem(String id, String entryPoint, String prompt, List<String> tests, String solution, String category,
                          int difficulty) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The problems that ship with the build. */
    static final String BUILT_IN = "/dev/agentswarm/environments/code/problems.jsonl";

    public CodeProblem {
        tests = List.copyOf(tests);
        if (!IDENTIFIER.matcher(entryPoint).matches()) {
            throw new IllegalArgumentException("problem " + id + ": entry_point \"" + entryPoint + "\" is not a Python name");
        }
        if (tests.isEmpty()) throw new IllegalArgumentException("problem " + id + " has no tests");
        for (String t : tests) {
            if (!t.startsWith("assert ") || t.contains("\n")) {
                throw new IllegalArgumentException("problem " + id + ": a test must be one `assert CALL == LITERAL` line, got: " + t);
            }
        }
        if (difficulty < 1 || difficulty > 3) throw new IllegalArgumentException("problem " + id + ": difficulty must be 1..3");
    }

    /** The built-in problems, or those of {@code file} (the same JSON lines) when it is given. */
    public static List<CodeProblem> load(Path file) {
        List<JsonRecords.Located> records = file == null ? JsonRecords.readResource(CodeProblem.class, BUILT_IN)
                : JsonRecords.read(file, Integer.MAX_VALUE, "code problem file", "set agentswarm.environments.code.problems");
        List<CodeProblem> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (JsonRecords.Located r : records) {
            List<String> tests = new ArrayList<>();
            r.array("tests").forEach(t -> tests.add(t.asText()));
            CodeProblem p;
            try {
                p = new CodeProblem(r.text("id"), r.text("entry_point"), r.text("prompt"), tests, r.text("solution"),
                        r.node().path("category").asText("general"), r.node().path("difficulty").asInt(1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(r.where() + ": " + e.getMessage(), e);
            }
            if (!ids.add(p.id())) throw new IllegalArgumentException(r.where() + ": problem id " + p.id() + " appears twice");
            out.add(p);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no code problems in " + (file == null ? BUILT_IN : file));
        return List.copyOf(out);
    }
}
