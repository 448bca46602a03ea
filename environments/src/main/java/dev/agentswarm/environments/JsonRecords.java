package dev.agentswarm.environments;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PushbackReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a dataset file of JSON records, in either shape benchmarks ship: JSON lines (MuSiQue's
 * official files, DBBench) or one JSON array (HotpotQA, the HippoRAG samples). Each record comes
 * with where it starts ({@code file:line}), so a loader's error names the line and the field; a
 * syntax error names its line and column.
 */
public final class JsonRecords {

    /** One record and where it starts. */
    public record Located(JsonNode node, String where) {

        /** A required field, or an error naming the line and the field. */
        public JsonNode require(String field) {
            return require(node, field, where);
        }

        /** A required non-blank text field. */
        public String text(String field) {
            JsonNode v = require(field);
            if (!v.isValueNode() || v.asText().isBlank()) {
                throw new IllegalArgumentException(where + ": field \"" + field + "\" must be a non-empty string");
            }
            return v.asText();
        }

        /** A required array field. */
        public JsonNode array(String field) {
            JsonNode v = require(field);
            if (!v.isArray()) throw new IllegalArgumentException(where + ": field \"" + field + "\" must be an array");
            return v;
        }

        public static JsonNode require(JsonNode node, String field, String where) {
            JsonNode v = node.get(field);
            if (v == null || v.isNull()) throw new IllegalArgumentException(where + ": field \"" + field + "\" is missing");
            return v;
        }
    }

    private JsonRecords() {}

    /**
     * Up to {@code limit} records of {@code file}.
     *
     * @param what what the file is, for the error when it is missing ("MuSiQue file")
     * @param hint how to fix a missing file (the configuration key to set)
     */
    public static List<Located> read(Path file, int limit, String what, String hint) {
        try (PushbackReader in = new PushbackReader(Files.newBufferedReader(file, StandardCharsets.UTF_8))) {
            return read(in, file.toString(), limit);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + " " + file + " not found (" + hint + ")");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + e.getMessage());
        }
    }

    /** Every record of a classpath resource that ships with the build. */
    public static List<Located> readResource(Class<?> owner, String resource) {
        java.io.InputStream stream = owner.getResourceAsStream(resource);
        if (stream == null) throw new IllegalStateException("resource " + resource + " is missing from the build");
        try (PushbackReader in = new PushbackReader(new java.io.InputStreamReader(stream, StandardCharsets.UTF_8))) {
            return read(in, resource, Integer.MAX_VALUE);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + resource + ": " + e.getMessage(), e);
        }
    }

    private static List<Located> read(PushbackReader in, String source, int limit) throws IOException {
        int first;
        int skippedLines = 0;
        while ((first = in.read()) >= 0 && Character.isWhitespace(first)) if (first == '\n') skippedLines++;
        if (first < 0) return List.of();
        in.unread(first);
        return first == '[' ? array(in, source, limit, skippedLines) : lines(new BufferedReader(in), source, limit, skippedLines);
    }

    private static List<Located> array(java.io.Reader in, String file, int limit, int lineOffset) throws IOException {
        List<Located> out = new ArrayList<>();
        try (JsonParser p = Json.MAPPER.getFactory().createParser(in)) {
            p.nextToken(); // [
            while (out.size() < limit && p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == null) throw new IllegalArgumentException(file + ": the JSON array is not closed");
                String where = file + ":" + (lineOffset + p.currentTokenLocation().getLineNr());
                JsonNode node = Json.MAPPER.readTree(p);
                if (!node.isObject()) throw new IllegalArgumentException(where + ": a record must be a JSON object");
                out.add(new Located(node, where));
            }
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException(file + ":" + (loc == null ? "?" : (lineOffset + loc.getLineNr()) + ":" + loc.getColumnNr())
                    + ": malformed JSON: " + e.getOriginalMessage());
        }
        return out;
    }

    private static List<Located> lines(BufferedReader in, String file, int limit, int lineOffset) throws IOException {
        List<Located> out = new ArrayList<>();
        String line;
        int number = lineOffset;
        while (out.size() < limit && (line = in.readLine()) != null) {
            number++;
            if (line.isBlank()) continue;
            String where = file + ":" + number;
            JsonNode node;
            try {
                node = Json.parse(line);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(where + ": not a JSON object: " + e.getOriginalMessage());
            }
            if (!node.isObject()) throw new IllegalArgumentException(where + ": a record must be a JSON object");
            out.add(new Located(node, where));
        }
        return out;
    }
}
