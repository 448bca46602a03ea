package dev.agentswarm.policy.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agentswarm.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on 127.0.0.1 that plays scripted answers to {@code POST /v1/chat/completions}
 * and records every request it receives, so tests check both directions of the wire.
 */
final class RecordingChatServer implements AutoCloseable {

    /** One scripted answer; {@code delayMs} holds the answer back (until the server closes). */
    record Reply(int status, Map<String, String> headers, String body, long delayMs) {
        static Reply ok(String body) {
            return new Reply(200, Map.of(), body, 0);
        }

        static Reply status(int status, String body) {
            return new Reply(status, Map.of(), body, 0);
        }

        Reply withHeader(String name, String value) {
            Map<String, String> h = new java.util.LinkedHashMap<>(headers);
            h.put(name, value);
            return new Reply(status, h, body, delayMs);
        }

        Reply delayed(long ms) {
            return new Reply(status, headers, body, ms);
        }
    }

    /** What arrived: path, headers (lower-case names), body and the arrival time. */
    record Received(String method, String path, Map<String, List<String>> headers, String body, long atNanos) {
        JsonNode json() {
            try {
                return Json.parse(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) return e.getValue().get(0);
            }
            return null;
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "recording-chat-server");
        t.setDaemon(true);
        return t;
    });
    private final List<Reply> script;
    private final Reply fallback;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    /** Answers the n-th request with {@code script[n]}, and every request after the script with {@code fallback}. */
    RecordingChatServer(List<Reply> script, Reply fallback) throws IOException {
        this.script = new ArrayList<>(script);
        this.fallback = fallback;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    static RecordingChatServer answering(Reply... replies) throws IOException {
        return new RecordingChatServer(List.of(replies), replies[replies.length - 1]);
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    Received last() {
        return received.get(received.size() - 1);
    }

    int count() {
        return received.size();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Reply reply;
            synchronized (this) {
                int n = received.size();
                received.add(new Received(ex.getRequestMethod(), ex.getRequestURI().getPath(),
                        Map.copyOf(ex.getRequestHeaders()), body, System.nanoTime()));
                reply = n < script.size() ? script.get(n) : fallback;
            }
            if (reply.delayMs() > 0) {
                try {
                    closing.await(reply.delayMs(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] out = reply.body().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            reply.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
            ex.sendResponseHeaders(reply.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream os = ex.getResponseBody()) {
                    os.write(out);
                }
            }
        } catch (IOException clientGone) {
            // The client timed out and hung up; nothing to answer.
        } finally {
            ex.close();
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
