package dev.agentswarm.learner.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Message;
import dev.agentswarm.policy.chat.ChatTemplate;
import dev.agentswarm.policy.tokenizer.BpeTokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConversationDatasetTest {

    private static final ChatTemplate TEMPLATE = new ChatTemplate(BpeTokenizer.untrained());

    static String line(String user, String assistant) {
        return Json.write(new Conversation(List.of(Message.user(user), Message.assistant(assistant)), List.of()).toHuggingFace());
    }

    @Test
    void skipsAFewMalformedLinesAndKeepsTheRest(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 30; i++) lines.add(line("q" + i, "a" + i));
        lines.add(1, "{not json");
        lines.add(5, "");
        Path file = dir.resolve("d.jsonl");
        Files.write(file, lines);
        ConversationDataset d = ConversationDataset.load(file, TEMPLATE, 64, 0.05);
        assertEquals(30, d.examples().size());
        assertEquals(1, d.stats().malformed());
        assertEquals(file + ":2", d.problems().get(0).where());
        assertTrue(d.problems().get(0).reason().startsWith("not JSON"), d.problems().get(0).reason());
        assertEquals(file + ":1", d.examples().get(0).source());
    }

    @Test
    void failsWithTheFirstReasonsWhenTooManyLinesAreBad(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("d.jsonl");
        Files.write(file, List.of(line("a", "b"), "{\"messages\": []}", "[1]", line("c", "d")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConversationDataset.load(file, TEMPLATE, 64, 0.05));
        assertTrue(e.getMessage().contains("2 of 4 lines are malformed"), e.getMessage());
        assertTrue(e.getMessage().contains(file + ":2: \"messages\" is empty"), e.getMessage());
        assertTrue(e.getMessage().contains(file + ":3: a line must be a JSON object"), e.getMessage());
        // The same file passes when the user allows half the lines to be bad.
        assertEquals(2, ConversationDataset.load(file, TEMPLATE, 64, 0.5).examples().size());
    }

    @Test
    void cutsLongConversationsAndDropsThoseLeftWithoutTrainedTokens(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("d.jsonl");
        String longUser = "x".repeat(200);
        Files.write(file, List.of(line("short", "ok " + "y".repeat(100)), line(longUser, "z"),
                Json.write(new Conversation(List.of(Message.user("only a question")), List.of()).toHuggingFace())));
        ConversationDataset d = ConversationDataset.load(file, TEMPLATE, 64, 1.0);
        assertEquals(1, d.examples().size());
        assertEquals(64, d.examples().get(0).length());
        assertEquals(2, d.stats().truncated());
        assertEquals(2, d.stats().withoutTrainedTokens());
        assertTrue(d.problems().stream().anyMatch(p -> p.reason().contains("within the first 64 tokens")));
        assertTrue(d.problems().stream().anyMatch(p -> p.reason().equals("no assistant message to train on")));
    }

    @Test
    void aMissingFileIsAClearError(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConversationDataset.load(dir.resolve("nope.jsonl"), TEMPLATE, 64, 0.05));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
}
