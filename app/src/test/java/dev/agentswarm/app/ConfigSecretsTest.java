package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A run's saved configuration names where its secrets come from, never the secrets themselves. */
class ConfigSecretsTest {

    private static final Config RUN = ConfigFactory.parseString("""
            agentswarm {
              policy.openai { api-key = "sk-live-0123456789", base-url = "http://127.0.0.1:8000/v1" }
              mcp.servers {
                github { command = ["npx", "server-github"], env { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_abcdefghijkl", LOG = "debug" } }
                search { url = "http://127.0.0.1:3001/mcp", headers { Authorization = "Bearer s3cr3t-header-value" } }
              }
              journal { user = "swarm", password = "pg-password-1" }
              episode { max-tokens = 512, token-budget = 32000 }
              train.run-dir = "runs/x"
            }
            """).resolve();

    @Test
    void secretsBecomeReferencesToTheVariablesThatHoldThem() throws Exception {
        Map<String, String> env = Map.of("OPENAI_API_KEY", "sk-live-0123456789", "GITHUB_TOKEN", "ghp_abcdefghijkl", "SHLVL", "1");
        ConfigSecrets.Rendered r = ConfigSecrets.render(RUN, env);
        for (String secret : List.of("sk-live-0123456789", "ghp_abcdefghijkl", "s3cr3t-header-value", "pg-password-1", "debug")) {
            assertFalse(r.text().contains(secret), secret + " in\n" + r.text());
        }
        assertTrue(r.text().contains("${?OPENAI_API_KEY}"), r.text());
        assertTrue(r.text().contains("${?GITHUB_TOKEN}"), "the variable that holds the token now: " + r.text());
        assertEquals(Map.of("AGENTSWARM_MCP_SERVERS_SEARCH_HEADERS_AUTHORIZATION", "agentswarm.mcp.servers.search.headers.Authorization",
                "AGENTSWARM_JOURNAL_PASSWORD", "agentswarm.journal.password",
                "LOG", "agentswarm.mcp.servers.github.env.LOG"), r.unset(), "what no variable holds now is listed, to be set");

        // Read back where the variables are set (here as root paths, which a substitution looks up before the environment).
        Config reader = ConfigFactory.parseMap(Map.of("OPENAI_API_KEY", "sk-live-0123456789", "GITHUB_TOKEN", "ghp_abcdefghijkl",
                "AGENTSWARM_JOURNAL_PASSWORD", "pg-password-1"));
        Config back = ConfigFactory.parseString(r.text()).withFallback(reader).resolve();
        assertEquals("sk-live-0123456789", back.getString("agentswarm.policy.openai.api-key"));
        assertEquals("ghp_abcdefghijkl", back.getString("agentswarm.mcp.servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"));
        assertEquals("pg-password-1", back.getString("agentswarm.journal.password"));
        assertEquals(512, back.getInt("agentswarm.episode.max-tokens"), "settings that only sound like secrets are kept");
        assertEquals(32000, back.getInt("agentswarm.episode.token-budget"));
        assertEquals("swarm", back.getString("agentswarm.journal.user"));
        assertFalse(back.hasPath("agentswarm.mcp.servers.search.headers.Authorization"), "an unset variable leaves the setting out");
        // Where the variable is unset, the reader's own setting shows through.
        Config node = ConfigFactory.parseString("agentswarm.policy.openai.api-key = \"sk-the-nodes-own\"");
        assertEquals("sk-the-nodes-own", ConfigFactory.parseString(r.text()).withFallback(node).resolve()
                .getString("agentswarm.policy.openai.api-key"));
    }

    @Test
    void aShortValueIsNotTakenForAnotherVariablesAndABlankKeyStays() {
        Config c = ConfigFactory.parseString("agentswarm.mcp.servers.a.env.LEVEL = \"1\"\nagentswarm.policy.openai.api-key = \"\"");
        ConfigSecrets.Rendered r = ConfigSecrets.render(c, Map.of("SHLVL", "1"));
        assertTrue(r.text().contains("${?LEVEL}"), r.text());
        assertTrue(ConfigFactory.parseString(r.text()).resolve().getString("agentswarm.policy.openai.api-key").isEmpty(), r.text());
    }
}
