package dev.agentswarm.environments.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the model reads for a {@code tools/call} result: the structured content as compact JSON, then
 * the text blocks, one after another. Said once: a text block that is the structured content's JSON
 * (as the spec asks servers to add for older clients) is left out, and so is the structured content
 * when the text already holds every value in it (server-filesystem's {@code {"content": TEXT}} beside
 * TEXT). For an image, audio clip or binary resource, one line naming its kind,
 * MIME type and size instead of its base64 (the context is for text); an embedded text resource's
 * text under a line naming it. Long results are cut by the episode's tool executor like any tool's
 * ({@code max-tool-result-chars}).
 */
final class McpResults {

    private McpResults() {}

    /** The observation text of {@code result}; an error result ({@code isError}) reads the same and fails the call. */
    static String render(McpSchema.CallToolResult result) {
        List<String> parts = new ArrayList<>();
        JsonNode structured = null;
        if (result.structuredContent() != null) {
            structured = Json.MAPPER.valueToTree(result.structuredContent());
        }
        List<McpSchema.Content> content = result.content() == null ? List.of() : result.content();
        for (McpSchema.Content c : content) {
            if (c == null) continue;
            if (c instanceof McpSchema.TextContent t) {
                String text = t.text() == null ? "" : t.text();
                if (structured != null && sameJson(text, structured)) continue;
                parts.add(text);
            } else if (c instanceof McpSchema.ImageContent i) {
                parts.add("[image: " + mime(i.mimeType()) + ", " + size(base64Bytes(i.data())) + "; not shown]");
            } else if (c instanceof McpSchema.AudioContent a) {
                parts.add("[audio: " + mime(a.mimeType()) + ", " + size(base64Bytes(a.data())) + "; not shown]");
            } else if (c instanceof McpSchema.EmbeddedResource r) {
                parts.add(resource(r.resource()));
            } else if (c instanceof McpSchema.ResourceLink l) {
                parts.add("[resource link: " + l.uri() + (l.name() == null ? "" : " (" + l.name() + ")") + ", " + mime(l.mimeType())
                        + (l.size() == null ? "" : ", " + size(l.size())) + "]");
            } else {
                parts.add("[" + c.type() + " content; not shown]");
            }
        }
        if (structured != null && !(parts.size() > 0 && heldBy(structured, String.join("\n", parts)))) {
            parts.add(0, Json.write(structured));
        }
        return String.join("\n", parts);
    }

    private static String resource(McpSchema.ResourceContents r) {
        if (r instanceof McpSchema.TextResourceContents t) {
            String text = t.text() == null ? "" : t.text();
            return "[resource: " + t.uri() + ", " + mime(t.mimeType()) + ", " + text.length() + " characters]\n" + text;
        }
        if (r instanceof McpSchema.BlobResourceContents b) {
            return "[resource: " + b.uri() + ", " + mime(b.mimeType()) + ", " + size(base64Bytes(b.blob())) + "; binary, not shown]";
        }
        return "[resource: " + (r == null ? "?" : r.uri()) + "; not shown]";
    }

    /** Whether every string and number in {@code structured} appears in {@code text} (a bounded check). */
    static boolean heldBy(JsonNode structured, String text) {
        List<String> leaves = new ArrayList<>();
        if (!leaves(structured, leaves, 0) || leaves.isEmpty()) return false;
        for (String leaf : leaves) if (!text.contains(leaf)) return false;
        return true;
    }

    private static boolean leaves(JsonNode n, List<String> out, int depth) {
        if (depth > 16 || out.size() > 64) return false;
        if (n.isTextual()) {
            if (!n.textValue().isEmpty()) out.add(n.textValue());
        } else if (n.isNumber()) {
            out.add(n.asText());
        } else if (n.isContainerNode()) {
            for (JsonNode c : n) if (!leaves(c, out, depth + 1)) return false;
        }
        return true;
    }

    private static boolean sameJson(String text, JsonNode structured) {
        String s = text.strip();
        if (s.isEmpty() || (s.charAt(0) != '{' && s.charAt(0) != '[')) return false;
        try {
            return Json.parse(s).equals(structured);
        } catch (Exception e) {
            return false;
        }
    }

    private static String mime(String m) {
        return m == null || m.isBlank() ? "unknown type" : m;
    }

    /** The decoded size of base64 text, without decoding it. */
    static long base64Bytes(String b64) {
        if (b64 == null) return 0;
        int n = b64.length();
        while (n > 0 && Character.isWhitespace(b64.charAt(n - 1))) n--;
        int pad = 0;
        if (n > 0 && b64.charAt(n - 1) == '=') pad++;
        if (n > 1 && b64.charAt(n - 2) == '=') pad++;
        return Math.max(0, (long) n * 3 / 4 - pad);
    }

    static String size(long bytes) {
        if (bytes < 1024) return bytes + " bytes";
        if (bytes < 1024 * 1024) return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }
}
