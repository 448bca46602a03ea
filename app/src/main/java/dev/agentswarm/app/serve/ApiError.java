package dev.agentswarm.app.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import java.time.Duration;

/**
 * A request the server will not serve, with the OpenAI error shape: HTTP status, a message that says
 * what is wrong and how to fix it, the error type, the request field at fault ({@code param}, dotted
 * and indexed as in {@code messages[2].content}) and a short machine code.
 */
public final class ApiError extends RuntimeException {

    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final Duration retryAfter;

    public ApiError(int status, String type, String message, String param, String code) {
        this(status, type, message, param, code, null);
    }

    /** @param retryAfter sent as the Retry-After header; null: none */
    public ApiError(int status, String type, String message, String param, String code, Duration retryAfter) {
        super(message);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfter = retryAfter;
    }

    /** 400: a field is missing, of the wrong type or out of range. */
    public static ApiError invalid(String param, String message) {
        return new ApiError(400, "invalid_request_error", message, param, "invalid_value");
    }

    /** 404: no served model by that name. */
    public static ApiError unknownModel(String model, String served) {
        return new ApiError(404, "invalid_request_error", "The model `" + model + "` does not exist; this server serves "
                + served + " (GET /v1/models)", "model", "model_not_found");
    }

    /** 429: the policy server's queue is full; the client should retry later. */
    public static ApiError overloaded(String message) {
        return new ApiError(429, "rate_limit_exceeded", message + "; retry later", null, "queue_full", Duration.ofSeconds(1));
    }

    /** 429: as many swarms run as the server allows; the client should retry after {@code retryAfter}. */
    public static ApiError tooManySwarms(int running, Duration retryAfter) {
        return new ApiError(429, "rate_limit_exceeded", running + " swarms are running, as many as this server runs at once"
                + " (agentswarm.serve.swarm.max-concurrent); retry later", null, "too_many_swarms", retryAfter);
    }

    public static ApiError internal(String message) {
        return new ApiError(500, "server_error", message, null, "internal_error");
    }

    public int status() {
        return status;
    }

    public String param() {
        return param;
    }

    public String type() {
        return type;
    }

    public String code() {
        return code;
    }

    /** How long the client should wait before retrying; null when retrying will not help. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** {@code {"error": {"message", "type", "param", "code"}}}. */
    public ObjectNode body() {
        ObjectNode root = Json.object();
        ObjectNode e = root.putObject("error");
        e.put("message", getMessage());
        e.put("type", type);
        if (param == null) e.putNull("param");
        else e.put("param", param);
        if (code == null) e.putNull("code");
        else e.put("code", code);
        return root;
    }
}
