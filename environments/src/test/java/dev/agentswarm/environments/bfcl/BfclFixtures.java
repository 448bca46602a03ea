package dev.agentswarm.environments.bfcl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.protocol.Task;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The BFCL records copied into the test resources, and the whole local data when it is beside the repository. */
final class BfclFixtures {

    private BfclFixtures() {}

    static Path copy() {
        try {
            return Path.of(BfclFixtures.class.getResource("/bfcl/README.md").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** ../shared/data/bfcl from the module (tests run in it) or the repository, or null. */
    static Path shared() {
        for (Path p : List.of(Path.of("../../shared/data/bfcl"), Path.of("../shared/data/bfcl"))) {
            if (Files.isRegularFile(p.resolve("BFCL_v4_simple_python.json"))) return p;
        }
        return null;
    }

    static Task task(String id) {
        String label = id.replaceAll("_\\d+(-\\d+-\\d+)?$", "");
        for (Task t : BfclTasks.load(copy(), BfclCategory.parse(label), BfclSuite.NAME, "heldout")) if (t.id().equals(id)) return t;
        throw new IllegalArgumentException("no " + id + " in the test copy");
    }

    /** Calls written as [{"name": ..., "arguments": {...}}, ...]. */
    static List<BfclChecker.Call> calls(String json) {
        List<BfclChecker.Call> out = new ArrayList<>();
        for (JsonNode c : read(json)) out.add(new BfclChecker.Call(c.get("name").asText(), c.get("arguments")));
        return out;
    }

    static JsonNode read(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static ArrayNode array(String json) {
        return (ArrayNode) read(json);
    }
}
