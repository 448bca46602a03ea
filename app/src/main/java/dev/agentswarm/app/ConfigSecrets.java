package dev.agentswarm.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import com.typesafe.config.ConfigValueType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Renders a resolved configuration for a run folder without the secrets in it: an API key, a token,
 * a password, and every value of an MCP server's {@code env} and {@code headers} (any of them may be
 * a token, whatever its name) are written as {@code ${?VARIABLE}}, which whoever reads the file back
 * (a resumed run, every learner node) resolves from its own environment. The variable is the one
 * that holds the value now when there is one (OPENAI_API_KEY, GITHUB_TOKEN…), else a name made from
 * the setting's path, which {@link Rendered#unset()} lists so that the user can be told to set it.
 */
public final class ConfigSecrets {

    /** The rendered text and the variables that no environment variable held when it was written. */
    public record Rendered(String text, Map<String, String> unset) {}

    /** Names of settings that hold a credential, compared on the parts between dashes/underscores. */
    private static final Set<String> SECRET_WORDS = Set.of("token", "secret", "password", "passwd", "credential", "credentials");

    /** A variable name a substitution can hold unquoted. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private ConfigSecrets() {}

    /** {@code root} rendered as HOCON, with its secrets replaced by references; the environment is this process's. */
    public static Rendered render(Config root) {
        return render(root, System.getenv());
    }

    static Rendered render(Config root, Map<String, String> env) {
        Map<String, String> placeholders = new LinkedHashMap<>(); // placeholder text → ${?VARIABLE}
        Map<String, String> unset = new LinkedHashMap<>();
        Config masked = root;
        String nonce = UUID.randomUUID().toString();
        for (Map.Entry<String, ConfigValue> e : root.entrySet()) {
            List<String> path = ConfigUtil.splitPath(e.getKey());
            if (!isSecret(path) || e.getValue().valueType() != ConfigValueType.STRING) continue;
            String value = (String) e.getValue().unwrapped();
            if (value.isBlank()) continue; // "" is no secret, and says "none" when read back
            String variable = variable(path, value, env);
            if (!value.equals(env.get(variable))) unset.put(variable, e.getKey());
            String placeholder = "agentswarm-secret-" + nonce + "-" + placeholders.size();
            placeholders.put("\"" + placeholder + "\"", "${?" + variable + "}");
            masked = masked.withValue(e.getKey(), ConfigValueFactory.fromAnyRef(placeholder));
        }
        String text = masked.root().render(ConfigRenderOptions.defaults().setOriginComments(false));
        for (Map.Entry<String, String> p : placeholders.entrySet()) text = text.replace(p.getKey(), p.getValue());
        return new Rendered(text, unset);
    }

    static boolean isSecret(List<String> path) {
        String key = path.get(path.size() - 1).toLowerCase(Locale.ROOT);
        if (key.contains("api-key") || key.contains("api_key") || key.contains("apikey")) return true;
        for (String word : key.split("[-_.]")) if (SECRET_WORDS.contains(word)) return true;
        // agentswarm.mcp.servers.<name>.env.<VAR> and .headers.<Header>
        int servers = path.indexOf("servers");
        return servers > 0 && path.get(servers - 1).equals("mcp") && path.size() == servers + 4
                && (path.get(servers + 2).equals("env") || path.get(servers + 2).equals("headers"));
    }

    /**
     * The environment variable the reference names: the customary one (OPENAI_API_KEY for an API key,
     * an MCP server's variable by its own name) unless another holds the value now; else one holding
     * it (a value that short is no credential and is not looked for); else a name made from the path.
     */
    private static String variable(List<String> path, String value, Map<String, String> env) {
        String key = path.get(path.size() - 1);
        String customary = key.equals("api-key") ? "OPENAI_API_KEY"
                : path.size() >= 2 && path.get(path.size() - 2).equals("env") ? key : null;
        if (customary != null && !NAME.matcher(customary).matches()) customary = null;
        if (customary != null && value.equals(env.get(customary))) return customary;
        if (value.length() >= 8) {
            for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
                if (value.equals(e.getValue()) && NAME.matcher(e.getKey()).matches()) return e.getKey();
            }
        }
        if (customary != null) return customary;
        StringBuilder made = new StringBuilder();
        for (String part : path) made.append(made.length() == 0 ? "" : "_").append(part.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
        return made.toString();
    }
}
