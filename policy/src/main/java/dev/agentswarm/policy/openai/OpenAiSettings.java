package dev.agentswarm.policy.openai;

import com.typesafe.config.Config;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach an OpenAI-compatible chat-completions server (vLLM, SGLang, Ollama, llama.cpp) and
 * what to ask it for besides the conversation. {@code baseUrl} is the API root that
 * {@code /chat/completions} is appended to (usually ending in {@code /v1}). {@code apiKey} may be
 * null: local servers rarely check it. {@code extraBody} entries are merged into every request body
 * at top level, for server-specific knobs this record does not name (e.g.
 * {@code chat_template_kwargs}, {@code min_p}).
 */
public record OpenAiSettings(URI baseUrl, String model, String apiKey, Duration connectTimeout,
                             Duration requestTimeout, int maxRetries, Duration initialBackoff, Duration maxBackoff,
                             boolean logprobs, int topLogprobs, boolean returnTokenIds, Map<String, Object> extraBody) {

    /** Where the settings live in the configuration tree. */
    public static final String CONFIG_PATH = "agentswarm.policy.openai";

    /** The environment variable most OpenAI clients read the key from. */
    public static final String API_KEY_ENV = "OPENAI_API_KEY";

    public OpenAiSettings {
        Objects.requireNonNull(baseUrl, "base-url is required (e.g. http://127.0.0.1:8000/v1)");
        baseUrl = normalize(baseUrl);
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("model is blank: set " + CONFIG_PATH
                    + ".model to the name the server serves (vLLM: --served-model-name or the HF id;"
                    + " Ollama: e.g. qwen3:8b; see GET " + baseUrl + "/models)");
        }
        model = model.strip();
        // A blank key is what `api-key = ""` and an empty env variable give: treat as "no key".
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
        requirePositive(connectTimeout, "connect-timeout");
        requirePositive(requestTimeout, "request-timeout");
        requirePositive(initialBackoff, "initial-backoff");
        requirePositive(maxBackoff, "max-backoff");
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("max-backoff (" + maxBackoff + ") must be >= initial-backoff ("
                    + initialBackoff + ")");
        }
        if (maxRetries < 0) throw new IllegalArgumentException("max-retries must be >= 0, got " + maxRetries);
        // 20 is the OpenAI limit; vLLM accepts more only with a server flag, so stay portable.
        if (topLogprobs < 0 || topLogprobs > 20) {
            throw new IllegalArgumentException("top-logprobs must be in [0, 20], got " + topLogprobs);
        }
        if (topLogprobs > 0 && !logprobs) {
            throw new IllegalArgumentException("top-logprobs = " + topLogprobs + " needs logprobs = true");
        }
        // Map.copyOf rejects null values, which a JSON body may legitimately carry.
        extraBody = extraBody == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extraBody));
    }

    /** Settings with the reference defaults for everything but the endpoint and model. */
    public static OpenAiSettings of(URI baseUrl, String model) {
        return new OpenAiSettings(baseUrl, model, null, Duration.ofSeconds(5), Duration.ofSeconds(120), 4,
                Duration.ofMillis(250), Duration.ofSeconds(8), true, 0, true, Map.of());
    }

    /** Reads the {@code agentswarm.policy.openai} block of a resolved configuration. */
    public static OpenAiSettings fromConfig(Config root) {
        Config c = root.getConfig(CONFIG_PATH);
        String url = c.getString("base-url");
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(CONFIG_PATH + ".base-url is not a valid URL: '" + url + "' ("
                    + e.getReason() + ")", e);
        }
        Map<String, Object> extra = c.hasPath("extra-body") ? c.getConfig("extra-body").root().unwrapped() : Map.of();
        return new OpenAiSettings(uri, c.getString("model"),
                c.hasPath("api-key") ? c.getString("api-key") : null,
                c.getDuration("connect-timeout"), c.getDuration("request-timeout"), c.getInt("max-retries"),
                c.getDuration("initial-backoff"), c.getDuration("max-backoff"),
                c.getBoolean("logprobs"), c.getInt("top-logprobs"), c.getBoolean("return-token-ids"), extra);
    }

    /** These settings with the key from {@code OPENAI_API_KEY} when none is set and the variable is. */
    public OpenAiSettings withApiKeyFromEnvironment() {
        return apiKey != null ? this : withApiKey(System.getenv(API_KEY_ENV));
    }

    public OpenAiSettings withApiKey(String key) {
        return new OpenAiSettings(baseUrl, model, key, connectTimeout, requestTimeout, maxRetries, initialBackoff,
                maxBackoff, logprobs, topLogprobs, returnTokenIds, extraBody);
    }

    public OpenAiSettings withModel(String newModel) {
        return new OpenAiSettings(baseUrl, newModel, apiKey, connectTimeout, requestTimeout, maxRetries,
                initialBackoff, maxBackoff, logprobs, topLogprobs, returnTokenIds, extraBody);
    }

    public OpenAiSettings withTimeouts(Duration connect, Duration request) {
        return new OpenAiSettings(baseUrl, model, apiKey, connect, request, maxRetries, initialBackoff, maxBackoff,
                logprobs, topLogprobs, returnTokenIds, extraBody);
    }

    public OpenAiSettings withRetries(int retries, Duration initial, Duration max) {
        return new OpenAiSettings(baseUrl, model, apiKey, connectTimeout, requestTimeout, retries, initial, max,
                logprobs, topLogprobs, returnTokenIds, extraBody);
    }

    public OpenAiSettings withLogprobs(boolean enabled, int top, boolean tokenIds) {
        return new OpenAiSettings(baseUrl, model, apiKey, connectTimeout, requestTimeout, maxRetries, initialBackoff,
                maxBackoff, enabled, top, tokenIds, extraBody);
    }

    public OpenAiSettings withExtraBody(Map<String, Object> extra) {
        return new OpenAiSettings(baseUrl, model, apiKey, connectTimeout, requestTimeout, maxRetries, initialBackoff,
                maxBackoff, logprobs, topLogprobs, returnTokenIds, extra);
    }

    /** The full endpoint the policy posts to. */
    public URI chatCompletionsUri() {
        return URI.create(baseUrl + "/chat/completions");
    }

    /** Never prints the key: settings end up in logs and run manifests. */
    @Override
    public String toString() {
        return "OpenAiSettings[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***")
                + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", maxRetries="
                + maxRetries + ", initialBackoff=" + initialBackoff + ", maxBackoff=" + maxBackoff + ", logprobs="
                + logprobs + ", topLogprobs=" + topLogprobs + ", returnTokenIds=" + returnTokenIds + ", extraBody="
                + extraBody.keySet() + "]";
    }

    private static URI normalize(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            throw new IllegalArgumentException("base-url must be an http:// or https:// URL such as"
                    + " http://127.0.0.1:8000/v1, got '" + uri + "'");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            throw new IllegalArgumentException("base-url has no host: '" + uri + "' (expected e.g. http://127.0.0.1:8000/v1)");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("base-url must not carry a query or fragment: '" + uri + "'");
        }
        String s = uri.toString();
        // "…/v1/" and "…/v1" must give the same endpoint, not "…/v1//chat/completions".
        while (s.endsWith("/")) s = s.substring(0, s.length() - 1);
        return URI.create(s);
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
        }
    }
}
