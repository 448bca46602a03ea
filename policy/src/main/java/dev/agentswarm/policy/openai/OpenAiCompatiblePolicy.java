package dev.agentswarm.policy.openai;

import com.typesafe.config.Config;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.policy.Policy;
import dev.agentswarm.core.policy.PolicyException;
import dev.agentswarm.core.protocol.Completion;
import dev.agentswarm.core.protocol.CompletionRequest;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * A policy served over the chat-completions API, as vLLM, SGLang, Ollama and llama.cpp expose
 * it. Calls are fully asynchronous: the request goes out with {@code sendAsync}, and retries
 * wait on a delayed executor rather than a sleeping thread, so thousands of concurrent episodes
 * cost no threads while they wait.
 *
 * <p>Overload (429), server errors (5xx, 408) and dropped connections are retried with
 * exponential backoff and jitter, honouring {@code Retry-After}. Everything else fails at once
 * with a {@link PolicyException} that names the endpoint, what went wrong and what to check.
 */
public final class OpenAiCompatiblePolicy implements Policy {

    private final OpenAiSettings settings;
    private final HttpClient client;
    private final URI endpoint;

    public OpenAiCompatiblePolicy(OpenAiSettings settings) {
        this(settings, defaultClient(settings));
    }

    /** With a caller-built client, e.g. one sharing an executor or carrying a proxy or TLS setup. */
    public OpenAiCompatiblePolicy(OpenAiSettings settings, HttpClient client) {
        this.settings = settings;
        this.client = client;
        this.endpoint = settings.chatCompletionsUri();
    }

    /** A client for {@code model} at {@code endpoint} with the default timeouts and the key from {@code OPENAI_API_KEY} (a {@code ModelClients}). */
    public static OpenAiCompatiblePolicy connect(java.net.URI endpoint, String model) {
        return new OpenAiCompatiblePolicy(OpenAiSettings.of(endpoint, model).withApiKeyFromEnvironment());
    }

    /** From the {@code agentswarm.policy.openai} block, taking the key from {@code OPENAI_API_KEY} if none is set. */
    public static OpenAiCompatiblePolicy fromConfig(Config root) {
        return new OpenAiCompatiblePolicy(OpenAiSettings.fromConfig(root).withApiKeyFromEnvironment());
    }

    private static HttpClient defaultClient(OpenAiSettings settings) {
        return HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                // uvicorn (vLLM, SGLang) and llama.cpp speak HTTP/1.1 only; the h2c upgrade attempt is wasted.
                .version(HttpClient.Version.HTTP_1_1)
                // A redirected POST may silently turn into a GET; better to report the new location.
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public OpenAiSettings settings() {
        return settings;
    }

    @Override
    public String describe() {
        return "openai " + settings.baseUrl() + " model=" + settings.model();
    }

    @Override
    public CompletionStage<Completion> complete(CompletionRequest request) {
        HttpRequest http;
        FunctionNames names;
        try {
            names = FunctionNames.of(request.tools());
            String body = Json.write(ChatRequestEncoder.encode(request, settings, names));
            HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                    .timeout(settings.requestTimeout())
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (settings.apiKey() != null) b.header("Authorization", "Bearer " + settings.apiKey());
            http = b.build();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new PolicyException(
                    "cannot build the request for " + endpoint + ": " + e.getMessage(), false, e));
        }
        return tryOnce(http, 1).thenApply(names::restore);
    }

    private CompletableFuture<Completion> tryOnce(HttpRequest http, int attempt) {
        CompletableFuture<HttpResponse<String>> send;
        try {
            send = client.sendAsync(http, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new PolicyException(
                    "cannot send the request to " + endpoint + ": " + e.getMessage(), false, e));
        }
        // The request timeout covers the wait for the response head only; this guard also covers a
        // server that sends headers and then stalls the body.
        long guardMs = settings.requestTimeout().plus(settings.connectTimeout()).toMillis();
        CompletableFuture<HttpResponse<String>> guarded = send.copy().orTimeout(guardMs, TimeUnit.MILLISECONDS);
        guarded.whenComplete((r, e) -> {
            if (e instanceof TimeoutException) send.cancel(true);
        });
        return guarded
                .handle((response, error) -> error == null
                        ? onResponse(http, attempt, response)
                        : onFailure(http, attempt, unwrap(error)))
                .thenCompose(Function.identity());
    }

    private CompletableFuture<Completion> onResponse(HttpRequest http, int attempt, HttpResponse<String> response) {
        int status = response.statusCode();
        String body = response.body();
        if (status >= 200 && status < 300) {
            try {
                return CompletableFuture.completedFuture(ChatResponseDecoder.decode(body));
            } catch (PolicyException e) {
                return CompletableFuture.failedFuture(e);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(new PolicyException(
                        "cannot read the response of " + endpoint + ": " + e + "; body: " + ServerErrorText.cut(body),
                        false, e));
            }
        }
        String serverSays = ServerErrorText.of(body);
        if (retryableStatus(status)) {
            String last = "HTTP " + status + ": " + serverSays;
            if (attempt <= settings.maxRetries()) {
                Duration delay = retryAfter(response.headers().firstValue("Retry-After"), settings.maxBackoff())
                        .orElseGet(() -> backoff(attempt, settings.initialBackoff(), settings.maxBackoff(),
                                ThreadLocalRandom.current().nextDouble()));
                return retryLater(http, attempt, delay);
            }
            return CompletableFuture.failedFuture(new PolicyException("POST " + endpoint + " failed after " + attempt
                    + (attempt == 1 ? " attempt" : " attempts") + "; last answer " + last + statusHint(status), true));
        }
        if (status >= 300 && status < 400) {
            String location = response.headers().firstValue("Location").orElse("(no Location header)");
            return CompletableFuture.failedFuture(new PolicyException("POST " + endpoint + " was redirected (HTTP "
                    + status + ") to " + location + "; set agentswarm.policy.openai.base-url to the final API root",
                    false));
        }
        return CompletableFuture.failedFuture(new PolicyException(
                "POST " + endpoint + " answered HTTP " + status + ": " + serverSays + statusHint(status), false));
    }

    private CompletableFuture<Completion> onFailure(HttpRequest http, int attempt, Throwable error) {
        String url = endpoint.toString();
        if (error instanceof HttpConnectTimeoutException) {
            return failed("could not connect to " + url + " within " + human(settings.connectTimeout())
                    + " (connect-timeout): is the server up and reachable from here?", true, error);
        }
        if (error instanceof HttpTimeoutException || error instanceof TimeoutException) {
            return failed("no answer from " + url + " within " + human(settings.requestTimeout())
                    + " (request-timeout): the server may be overloaded or the generation too long;"
                    + " raise agentswarm.policy.openai.request-timeout or lower max-tokens", true, error);
        }
        if (hasCause(error, UnresolvedAddressException.class) || hasCause(error, UnknownHostException.class)) {
            return failed("cannot resolve the host of " + url + ": check agentswarm.policy.openai.base-url", false,
                    error);
        }
        if (hasCause(error, ConnectException.class)) {
            return failed("cannot connect to " + url + " (" + describeError(error) + "): is the server running"
                    + " and listening there? Check agentswarm.policy.openai.base-url (e.g. curl "
                    + settings.baseUrl() + "/models)", true, error);
        }
        if (hasCause(error, SSLException.class)) {
            return failed("TLS with " + url + " failed (" + describeError(error) + "): does the server speak https,"
                    + " or should base-url start with http://?", false, error);
        }
        if (error instanceof IOException) {
            // Reset or closed mid-exchange: typical of a restarting server or a proxy dropping idle connections.
            if (attempt <= settings.maxRetries()) {
                return retryLater(http, attempt, backoff(attempt, settings.initialBackoff(), settings.maxBackoff(),
                        ThreadLocalRandom.current().nextDouble()));
            }
            return failed("POST " + url + " failed after " + attempt + (attempt == 1 ? " attempt" : " attempts")
                    + "; last error: connection lost (" + describeError(error) + ")", true, error);
        }
        if (error instanceof PolicyException pe) return CompletableFuture.failedFuture(pe);
        return failed("POST " + url + " failed: " + describeError(error), false, error);
    }

    private CompletableFuture<Completion> retryLater(HttpRequest http, int attempt, Duration delay) {
        Executor later = CompletableFuture.delayedExecutor(Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
        return CompletableFuture.supplyAsync(() -> attempt + 1, later).thenCompose(next -> tryOnce(http, next));
    }

    private static CompletableFuture<Completion> failed(String message, boolean retryable, Throwable cause) {
        return CompletableFuture.failedFuture(new PolicyException(message, retryable, cause));
    }

    static boolean retryableStatus(int status) {
        return status == 429 || status == 408 || (status >= 500 && status <= 599);
    }

    private String statusHint(int status) {
        return switch (status) {
            case 401, 403 -> " (check the API key: agentswarm.policy.openai.api-key or " + OpenAiSettings.API_KEY_ENV + ")";
            case 404 -> " (check that base-url is the API root, usually ending in /v1, and that model '"
                    + settings.model() + "' is served: GET " + settings.baseUrl() + "/models)";
            case 413 -> " (the request is too large for the server: shorten the conversation)";
            case 429 -> " (the server is rate-limiting: lower the number of concurrent episodes or raise max-retries)";
            default -> status >= 500 ? " (the server failed; check its log)" : "";
        };
    }

    /**
     * Exponential backoff with "equal jitter": half the window is fixed, half random, so
     * synchronized clients spread out but no retry comes back immediately.
     */
    static Duration backoff(int retry, Duration initial, Duration max, double random) {
        long base = initial.toMillis();
        long capped = max.toMillis();
        long window = base << Math.min(Math.max(retry - 1, 0), 30);
        if (window <= 0 || window > capped) window = capped;
        long half = window / 2;
        return Duration.ofMillis(half + (long) (random * (window - half)));
    }

    /** Retry-After as delta-seconds or an HTTP date, capped at {@code max}; empty when absent or unreadable. */
    static Optional<Duration> retryAfter(Optional<String> header, Duration max) {
        if (header.isEmpty() || header.get().isBlank()) return Optional.empty();
        String v = header.get().strip();
        Duration d;
        try {
            d = Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
        } catch (NumberFormatException notSeconds) {
            try {
                d = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
            } catch (DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
        if (d.isNegative()) d = Duration.ZERO;
        return Optional.of(d.compareTo(max) > 0 ? max : d);
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) return true;
            if (c.getCause() == c) break;
        }
        return false;
    }

    private static String describeError(Throwable t) {
        // The JDK often throws ConnectException with a null message; the cause then says more.
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && !c.getMessage().isBlank()) return c.getClass().getSimpleName() + ": " + c.getMessage();
        }
        // A bare ConnectException from the JDK client is a refused connection.
        return hasCause(t, ConnectException.class) ? "connection refused" : t.getClass().getSimpleName();
    }

    /** "300ms", "5s", "2m30s": how durations are written in the configuration, not ISO-8601. */
    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) return ms + "ms";
        long s = ms / 1000;
        if (s < 60) return s + "s";
        return (s / 60) + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
    }
}
