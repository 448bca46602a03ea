package dev.agentswarm.environments;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.environments.arithmetic.ArithmeticSuite;
import dev.agentswarm.environments.bfcl.BfclSuite;
import dev.agentswarm.environments.tau2.Tau2Suite;
import dev.agentswarm.environments.code.CodeSuite;
import dev.agentswarm.environments.multihop.MultihopSuite;
import dev.agentswarm.environments.multihop.QaDatasetSuite;
import dev.agentswarm.environments.plugins.PluginSuite;
import dev.agentswarm.environments.sql.DbBenchSuite;
import dev.agentswarm.environments.sql.SqlSuite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Every suite this build knows, by name, and how each is made from its configuration block
 * ({@code agentswarm.environments.<name>}). A node offers the ones listed in {@code enabled}.
 */
public final class SuiteCatalog {

    public static final String CONFIG_PATH = "agentswarm.environments";

    /** Makes a suite from its block; the root configuration holds what it shares with the node (the sandbox). */
    private static final Map<String, BiFunction<Config, Config, Suite>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(ArithmeticSuite.NAME, (block, root) -> ArithmeticSuite.fromConfig(block));
        FACTORIES.put(PluginSuite.NAME, (block, root) -> PluginSuite.fromConfig(block));
        FACTORIES.put(MultihopSuite.NAME, (block, root) -> MultihopSuite.fromConfig(block));
        FACTORIES.put(QaDatasetSuite.MUSIQUE, (block, root) -> QaDatasetSuite.musique(block));
        FACTORIES.put(QaDatasetSuite.HOTPOTQA, (block, root) -> QaDatasetSuite.hotpotqa(block));
        FACTORIES.put(SqlSuite.NAME, (block, root) -> SqlSuite.fromConfig(block));
        FACTORIES.put(DbBenchSuite.NAME, (block, root) -> DbBenchSuite.fromConfig(block));
        FACTORIES.put(CodeSuite.NAME, CodeSuite::fromConfig);
        FACTORIES.put(BfclSuite.NAME, (block, root) -> BfclSuite.fromConfig(block));
        FACTORIES.put(Tau2Suite.RETAIL, (block, root) -> Tau2Suite.retail(block));
        FACTORIES.put(Tau2Suite.MOCK, (block, root) -> Tau2Suite.mock(block));
        FACTORIES.put(Tau2Suite.TELECOM, (block, root) -> Tau2Suite.telecom(block));
    }

    private SuiteCatalog() {}

    public static List<String> known() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** The suites named in {@code agentswarm.environments.enabled}, each built from its own block. */
    public static Suites fromConfig(Config root) {
        List<Suite> suites = new ArrayList<>();
        for (String name : root.getConfig(CONFIG_PATH).getStringList("enabled")) suites.add(build(root, name));
        return new Suites(suites);
    }

    /** One suite by name, whether enabled or not (the CLI's --suite). */
    public static Suite one(Config root, String name) {
        return build(root, name);
    }

    private static Suite build(Config root, String name) {
        BiFunction<Config, Config, Suite> factory = FACTORIES.get(name);
        if (factory == null) throw new IllegalArgumentException("unknown suite \"" + name + "\"; known suites: " + known());
        try {
            return factory.apply(root.getConfig(CONFIG_PATH).getConfig(name), root);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("suite " + name + ": bad configuration: " + e.getMessage(), e);
        }
    }
}
