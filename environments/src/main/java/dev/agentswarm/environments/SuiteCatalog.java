package dev.agentswarm.environments;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.agentswarm.core.policy.ModelClients;
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

/**
 * Every suite this build knows, by name, and how each is made from its configuration block
 * ({@code agentswarm.environments.<name>}). A node offers the ones listed in {@code enabled}.
 */
public final class SuiteCatalog {

    public static final String CONFIG_PATH = "agentswarm.environments";

    /** Makes a suite from its block; the root configuration holds what it shares with the node (the sandbox). */
    @FunctionalInterface
    private interface Factory {
        Suite make(Config block, Config root, ModelClients models);
    }

    private static final Map<String, Factory> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(ArithmeticSuite.NAME, (block, root, models) -> ArithmeticSuite.fromConfig(block));
        FACTORIES.put(PluginSuite.NAME, (block, root, models) -> PluginSuite.fromConfig(block));
        FACTORIES.put(MultihopSuite.NAME, (block, root, models) -> MultihopSuite.fromConfig(block));
        FACTORIES.put(QaDatasetSuite.MUSIQUE, (block, root, models) -> QaDatasetSuite.musique(block));
        FACTORIES.put(QaDatasetSuite.HOTPOTQA, (block, root, models) -> QaDatasetSuite.hotpotqa(block));
        FACTORIES.put(SqlSuite.NAME, (block, root, models) -> SqlSuite.fromConfig(block));
        FACTORIES.put(DbBenchSuite.NAME, (block, root, models) -> DbBenchSuite.fromConfig(block));
        FACTORIES.put(CodeSuite.NAME, (block, root, models) -> CodeSuite.fromConfig(block, root));
        FACTORIES.put(BfclSuite.NAME, (block, root, models) -> BfclSuite.fromConfig(block));
        FACTORIES.put(Tau2Suite.RETAIL, (block, root, models) -> Tau2Suite.retail(block, models));
        FACTORIES.put(Tau2Suite.MOCK, (block, root, models) -> Tau2Suite.mock(block, models));
        FACTORIES.put(Tau2Suite.TELECOM, (block, root, models) -> Tau2Suite.telecom(block, models));
    }

    private SuiteCatalog() {}

    public static List<String> known() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** The suites named in {@code agentswarm.environments.enabled}, each built from its own block; none may name a model endpoint. */
    public static Suites fromConfig(Config root) {
        return fromConfig(root, ModelClients.NONE);
    }

    /** As {@link #fromConfig(Config)}; a suite whose block names models of its own (τ²'s user and judge) reaches them through {@code models}. */
    public static Suites fromConfig(Config root, ModelClients models) {
        List<Suite> suites = new ArrayList<>();
        for (String name : root.getConfig(CONFIG_PATH).getStringList("enabled")) suites.add(build(root, name, models));
        return new Suites(suites);
    }

    /** One suite by name, whether enabled or not (the CLI's --suite); its block may name no model endpoint. */
    public static Suite one(Config root, String name) {
        return build(root, name, ModelClients.NONE);
    }

    /** One suite by name, reaching the models its block names through {@code models}. */
    public static Suite one(Config root, String name, ModelClients models) {
        return build(root, name, models);
    }

    private static Suite build(Config root, String name, ModelClients models) {
        Factory factory = FACTORIES.get(name);
        if (factory == null) throw new IllegalArgumentException("unknown suite \"" + name + "\"; known suites: " + known());
        try {
            return factory.make(root.getConfig(CONFIG_PATH).getConfig(name), root, models);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("suite " + name + ": bad configuration: " + e.getMessage(), e);
        }
    }
}
