package dev.agentswarm.environments.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the model reads for each kind of tools/call result. */
class McpResultsTest {

    private static McpSchema.CallToolResult result(List<McpSchema.Content> content, Object structured) {
        return new McpSchema.CallToolResult(content, false, structured, null);
    }

    private static McpSchema.TextContent text(String t) {
        return new McpSchema.TextContent(t);
    }

    @Test
    void textBlocksAreJoinedLineByLine() {
        assertEquals("one\ntwo", McpResults.render(result(List.of(text("one"), text("two")), null)));
        assertEquals("", McpResults.render(result(List.of(), null)));
    }

    @Test
    void structuredContentIsCompactJsonAndSaidOnce() {
        Map<String, Object> weather = Map.of("t", 36);
        // The text block repeating it (the spec's advice for older clients) is not shown twice.
        assertEquals("{\"t\":36}", McpResults.render(result(List.of(text("{\n  \"t\": 36\n}")), weather)));
        // A text that holds every value already (server-filesystem's {"content": TEXT}) is enough.
        assertEquals("line 1\nline 2", McpResults.render(result(List.of(text("line 1\nline 2")), Map.of("content", "line 1\nline 2"))));
        // A summary that does not: both, the data first.
        assertEquals("{\"rows\":[1,2,3]}\nFound 3 rows", McpResults.render(result(List.of(text("Found 3 rows")), Map.of("rows", List.of(1, 2, 3)))));
        assertEquals("{\"ok\":true}", McpResults.render(result(List.of(), Map.of("ok", true))));
    }

    @Test
    void binaryContentIsOneLineNamingItNotItsBase64() {
        String png = Base64.getEncoder().encodeToString(new byte[3000]);
        String wav = Base64.getEncoder().encodeToString(new byte[5]);
        List<McpSchema.Content> content = List.of(text("Here:"),
                new McpSchema.ImageContent(null, png, "image/png"),
                new McpSchema.AudioContent(null, wav, "audio/wav"),
                new McpSchema.EmbeddedResource(null, new McpSchema.BlobResourceContents("file:///a.gz", "application/gzip",
                        Base64.getEncoder().encodeToString(new byte[2 * 1024 * 1024]))),
                new McpSchema.EmbeddedResource(null, new McpSchema.TextResourceContents("file:///a.txt", "text/plain", "hello")),
                McpSchema.ResourceLink.builder().uri("test://static/resource/1").name("Resource 1").mimeType("text/plain").size(120L).build());
        assertEquals("""
                Here:
                [image: image/png, 2.9 KiB; not shown]
                [audio: audio/wav, 5 bytes; not shown]
                [resource: file:///a.gz, application/gzip, 2.0 MiB; binary, not shown]
                [resource: file:///a.txt, text/plain, 5 characters]
                hello
                [resource link: test://static/resource/1 (Resource 1), text/plain, 120 bytes]""",
                McpResults.render(result(content, null)));
    }

    @Test
    void base64SizesAreComputedWithoutDecoding() {
        for (int n = 0; n < 10; n++) {
            assertEquals(n, McpResults.base64Bytes(Base64.getEncoder().encodeToString(new byte[n])));
        }
    }
}
