package dev.agentswarm.orchestrator.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's swarm settings are text from another member: what the client's own resolved settings
 * render to is taken as it is, and anything that would read the node's settings, its environment or
 * its files, or set more than agentswarm.swarm and agentswarm.episode, is refused naming what.
 */
class ClientSwarmConfigTest {

    private static String refusal(String hocon) {
        return assertThrows(IllegalArgumentException.class, () -> ClientSwarmConfig.parse(hocon)).getMessage();
    }

    @Test
    void aClientsResolvedSettingsAreTakenAsTheyAre() {
        Config client = ConfigFactory.parseString("""
                agentswarm.swarm { max-parallel = 3, system-prompt = "be brief" }
                agentswarm.episode.max-turns = 4
                agentswarm.policy.openai.api-key = "the client's own, never sent"
                """);
        Config parsed = ClientSwarmConfig.parse(SwarmEntity.clientConfig(client));
        assertEquals(3, parsed.getInt("agentswarm.swarm.max-parallel"));
        assertEquals("be brief", parsed.getString("agentswarm.swarm.system-prompt"));
        assertEquals(4, parsed.getInt("agentswarm.episode.max-turns"));
        assertFalse(parsed.hasPath("agentswarm.policy"), "only the swarm's settings travel");
    }

    @Test
    void aReferenceToTheNodesSettingsIsRefused() {
        String why = refusal("agentswarm.swarm.system-prompt = ${agentswarm.policy.openai.api-key}");
        assertTrue(why.contains("${…}") && why.contains("agentswarm.policy.openai.api-key"), why);
    }

    @Test
    void theEnvironmentAndSystemPropertiesAreNotResolved() {
        String variable = System.getenv().keySet().stream().filter(k -> k.matches("[A-Z_]+")).findFirst().orElse("PATH");
        assertTrue(refusal("agentswarm.swarm.system-prompt = ${" + variable + "}").contains(variable));
        assertTrue(refusal("agentswarm.swarm.system-prompt = ${java.home}").contains("java.home"));
        // An optional one resolves to nothing, never to the node's value.
        Config optional = ClientSwarmConfig.parse("agentswarm.swarm.system-prompt = \"x\"\nagentswarm.swarm.system-prompt = ${?" + variable + "}");
        assertEquals("x", optional.getString("agentswarm.swarm.system-prompt"));
    }

    @Test
    void everyKindOfIncludeIsRefused(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.conf"), "agentswarm.swarm.system-prompt = \"the node's secret\"\n");
        for (String include : new String[] {"include \"" + secret + "\"", "include file(\"" + secret + "\")",
                "include required(file(\"" + secret + "\"))", "include url(\"" + secret.toUri() + "\")",
                "include classpath(\"reference.conf\")", "agentswarm.swarm { include file(\"" + secret + "\") }"}) {
            String why = refusal(include);
            assertTrue(why.contains("may not include anything") && why.contains("include "), include + ": " + why);
            assertFalse(why.contains("the node's secret"), why);
        }
    }

    @Test
    void onlyTheSwarmsAndTheEpisodesSettingsMayBeSet() {
        String why = refusal("agentswarm.policy.openai.base-url = \"http://attacker\"");
        assertTrue(why.contains("agentswarm.policy") && why.contains("only agentswarm.swarm and agentswarm.episode"), why);
        assertTrue(refusal("pekko.actor.provider = local").contains("not pekko"));
        assertTrue(refusal("agentswarm = 3").contains("not agentswarm"));
        assertTrue(refusal("x".repeat(ClientSwarmConfig.MAX_CHARS + 1)).contains("more than"));
        assertTrue(refusal("agentswarm.swarm {").contains("do not parse"));
    }
}
