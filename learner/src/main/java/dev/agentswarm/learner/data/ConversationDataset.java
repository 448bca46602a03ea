package dev.agentswarm.learner.data;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.policy.chat.ChatFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A JSONL file of conversations in the Hugging Face {@code messages} format, rendered with the chat
 * template into training examples of at most {@code seqLen} tokens.
 *
 * <p>Bad input is contained, not fatal: a malformed line is skipped and reported as {@code file:line:
 * reason}, and the good lines are kept, unless more than {@code maxBadFraction} of the non-blank
 * lines are malformed, which says the file is wrong rather than a few records, and fails with the
 * first reasons. Long conversations are cut to {@code seqLen} (counted); one with no trained token
 * left is dropped (counted), since it would only add padding.
 */
public final class ConversationDataset {

    /** Parsed lines before rendering (a tokenizer may first have to be trained on them). */
    public record ParsedFile(Path file, List<Conversation> conversations, List<String> sources,
                             List<LineProblem> problems, int lines) {}

    /** What became of the file's lines. */
    public record Stats(int lines, int accepted, int malformed, int truncated, int withoutTrainedTokens,
                        long tokens, long trainedTokens) {}

    /** How many problems an error message quotes. */
    private static final int QUOTED_PROBLEMS = 5;

    private final List<Example> examples;
    private final List<LineProblem> problems;
    private final Stats stats;

    private ConversationDataset(List<Example> examples, List<LineProblem> problems, Stats stats) {
        this.examples = Collections.unmodifiableList(examples);
        this.problems = Collections.unmodifiableList(problems);
        this.stats = stats;
    }

    public static ConversationDataset load(Path file, ChatFormat template, int seqLen, double maxBadFraction)
            throws IOException {
        return render(read(file, maxBadFraction), template, seqLen);
    }

    /** Parses every line; throws IllegalArgumentException when too many are malformed or none is usable. */
    public static ParsedFile read(Path file, double maxBadFraction) throws IOException {
        List<Conversation> conversations = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        List<LineProblem> problems = new ArrayList<>();
        int lineNo = 0, nonBlank = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                lineNo++;
                if (line.isBlank()) continue;
                nonBlank++;
                String where = file + ":" + lineNo;
                try {
                    conversations.add(Conversation.fromHuggingFace(Json.parse(line)));
                    sources.add(where);
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    problems.add(new LineProblem(where, "not JSON: " + e.getOriginalMessage()));
                } catch (IllegalArgumentException e) {
                    problems.add(new LineProblem(where, e.getMessage()));
                }
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("data file " + file + " does not exist", e);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new IllegalArgumentException(file + ":" + (lineNo + 1) + ": not UTF-8 text", e);
        }
        if (conversations.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no usable conversation (" + nonBlank + " non-blank lines"
                    + (problems.isEmpty() ? "" : "; " + quote(problems)) + ")");
        }
        if (problems.size() > maxBadFraction * nonBlank) {
            throw new IllegalArgumentException(String.format("%s: %d of %d lines are malformed (more than the allowed %.1f%%): %s",
                    file, problems.size(), nonBlank, 100 * maxBadFraction, quote(problems)));
        }
        return new ParsedFile(file, conversations, sources, problems, lineNo);
    }

    /** Renders parsed conversations with {@code template}, cutting each to {@code seqLen} tokens. */
    public static ConversationDataset render(ParsedFile parsed, ChatFormat template, int seqLen) {
        if (seqLen < 2) throw new IllegalArgumentException("seq-len must be ≥ 2, got " + seqLen);
        List<Example> examples = new ArrayList<>(parsed.conversations().size());
        List<LineProblem> problems = new ArrayList<>(parsed.problems());
        int truncated = 0, untrained = 0;
        long tokens = 0, trained = 0;
        for (int i = 0; i < parsed.conversations().size(); i++) {
            Conversation c = parsed.conversations().get(i);
            ChatFormat.Rendered r = template.conversation(c.messages(), c.tools());
            int[] ids = r.ids(), mask = r.lossMask();
            if (ids.length > seqLen) {
                ids = Arrays.copyOf(ids, seqLen);
                mask = Arrays.copyOf(mask, seqLen);
                truncated++;
            }
            Example e = new Example(ids, mask, parsed.sources().get(i));
            if (e.trainedTargets() == 0) {
                untrained++;
                problems.add(new LineProblem(e.source(), r.trainedTokens() == 0 ? "no assistant message to train on"
                        : "no assistant token within the first " + seqLen + " tokens (seq-len)"));
                continue;
            }
            examples.add(e);
            tokens += e.length();
            trained += e.trainedTargets();
        }
        if (examples.isEmpty()) {
            throw new IllegalArgumentException(parsed.file() + ": no conversation has an assistant token to train on"
                    + " within seq-len " + seqLen + ": " + quote(problems));
        }
        Stats stats = new Stats(parsed.lines(), examples.size(), parsed.problems().size(), truncated, untrained, tokens, trained);
        return new ConversationDataset(examples, problems, stats);
    }

    public List<Example> examples() {
        return examples;
    }

    /** Every line not used, malformed or without trained tokens, with its reason. */
    public List<LineProblem> problems() {
        return problems;
    }

    public Stats stats() {
        return stats;
    }

    private static String quote(List<LineProblem> problems) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(QUOTED_PROBLEMS, problems.size()); i++) {
            if (i > 0) sb.append("; ");
            sb.append(problems.get(i));
        }
        if (problems.size() > QUOTED_PROBLEMS) sb.append("; … and ").append(problems.size() - QUOTED_PROBLEMS).append(" more");
        return sb.toString();
    }
}
