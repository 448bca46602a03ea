package dev.agentswarm.policy.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OpenAiSettingsTest {

    private static Config withOverrides(String hocon) {
        return ConfigFactory.parseString(hocon).withFallback(ConfigFactory.defaultReference()).resolve();
    }

    @Test
    void referenceDefaults() {
        OpenAiSettings s = OpenAiSettings.fromConfig(withOverrides("agentswarm.policy.openai.model = \"qwen3-8b\""));
        assertEquals(URI.create("http://127.0.0.1:8000/v1"), s.baseUrl());
        assertEquals("qwen3-8b", s.model());
        assertEquals(Duration.ofSeconds(5), s.connectTimeout());
        assertEquals(Duration.ofSeconds(120), s.requestTimeout());
        assertEquals(4, s.maxRetries());
        assertEquals(Duration.ofMillis(250), s.initialBackoff());
        assertEquals(Duration.ofSeconds(8), s.maxBackoff());
        assertTrue(s.logprobs());
        assertEquals(0, s.topLogprobs());
        assertTrue(s.returnTokenIds());
        assertEquals(Map.of(), s.extraBody());
        if (System.getenv(OpenAiSettings.API_KEY_ENV) == null) assertNull(s.apiKey(), "blank key means none");
        assertEquals(URI.create("http://127.0.0.1:8000/v1/chat/completions"), s.chatCompletionsUri());
    }

    @Test
    void overridesAndExtraBody() {
        OpenAiSettings s = OpenAiSettings.fromConfig(withOverrides("""
                agentswarm.policy.openai {
                  base-url = "https://llm.example.org/v1/"
                  model = "Qwen/Qwen3-8B"
                  api-key = "sk-123"
                  max-retries = 0
                  top-logprobs = 5
                  return-token-ids = false
                  extra-body { chat_template_kwargs { enable_thinking = false }, min_p = 0.05 }
                }"""));
        assertEquals(URI.create("https://llm.example.org/v1"), s.baseUrl(), "trailing slash dropped");
        assertEquals("sk-123", s.apiKey());
        assertEquals(0, s.maxRetries());
        assertEquals(5, s.topLogprobs());
        assertFalse(s.returnTokenIds());
        assertEquals(Map.of("enable_thinking", false), s.extraBody().get("chat_template_kwargs"));
        assertEquals(0.05, ((Number) s.extraBody().get("min_p")).doubleValue());
    }

    @Test
    void blankModelIsRejectedWithAHint() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> OpenAiSettings.fromConfig(withOverrides("agentswarm.policy.openai.model = \"  \"")));
        assertTrue(e.getMessage().contains("model is blank"), e.getMessage());
        assertTrue(e.getMessage().contains("agentswarm.policy.openai.model"), e.getMessage());
    }

    @Test
    void nonHttpUrlsAreRejected() {
        var ftp = assertThrows(IllegalArgumentException.class,
                () -> OpenAiSettings.of(URI.create("ftp://host/v1"), "m"));
        assertTrue(ftp.getMessage().contains("http:// or https://"), ftp.getMessage());
        var noScheme = assertThrows(IllegalArgumentException.class,
                () -> OpenAiSettings.of(URI.create("localhost:8000/v1"), "m"));
        assertTrue(noScheme.getMessage().contains("http:// or https://"), noScheme.getMessage());
        var garbage = assertThrows(IllegalArgumentException.class, () -> OpenAiSettings.fromConfig(
                withOverrides("agentswarm.policy.openai { model = m, base-url = \"http://bad host/v1\" }")));
        assertTrue(garbage.getMessage().contains("not a valid URL"), garbage.getMessage());
    }

    @Test
    void numericSettingsAreChecked() {
        OpenAiSettings s = OpenAiSettings.of(URI.create("http://h:1/v1"), "m");
        assertThrows(IllegalArgumentException.class, () -> s.withRetries(-1, Duration.ofMillis(1), Duration.ofMillis(1)));
        assertThrows(IllegalArgumentException.class, () -> s.withRetries(1, Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> s.withTimeouts(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> s.withLogprobs(true, 21, true));
        assertThrows(IllegalArgumentException.class, () -> s.withLogprobs(false, 2, true));
    }

    @Test
    void toStringHidesTheKey() {
        OpenAiSettings s = OpenAiSettings.of(URI.create("http://h:1/v1"), "m").withApiKey("sk-secret");
        assertFalse(s.toString().contains("sk-secret"), s.toString());
        assertTrue(s.toString().contains("apiKey=***"), s.toString());
    }

    @Test
    void backoffGrowsWithJitterAndIsCapped() {
        Duration initial = Duration.ofMillis(250);
        Duration max = Duration.ofSeconds(8);
        assertEquals(Duration.ofMillis(125), OpenAiCompatiblePolicy.backoff(1, initial, max, 0.0));
        assertEquals(Duration.ofMillis(250), OpenAiCompatiblePolicy.backoff(1, initial, max, 1.0));
        assertEquals(Duration.ofMillis(1000), OpenAiCompatiblePolicy.backoff(3, initial, max, 1.0));
        assertEquals(Duration.ofSeconds(8), OpenAiCompatiblePolicy.backoff(10, initial, max, 1.0));
        assertEquals(Duration.ofSeconds(8), OpenAiCompatiblePolicy.backoff(200, initial, max, 1.0));
        assertEquals(Duration.ofSeconds(4), OpenAiCompatiblePolicy.backoff(200, initial, max, 0.0));
    }

    @Test
    void durationsAreWrittenAsInConfig() {
        assertEquals("300ms", OpenAiCompatiblePolicy.human(Duration.ofMillis(300)));
        assertEquals("1500ms", OpenAiCompatiblePolicy.human(Duration.ofMillis(1500)));
        assertEquals("5s", OpenAiCompatiblePolicy.human(Duration.ofSeconds(5)));
        assertEquals("2m", OpenAiCompatiblePolicy.human(Duration.ofSeconds(120)));
        assertEquals("2m30s", OpenAiCompatiblePolicy.human(Duration.ofSeconds(150)));
    }

    @Test
    void retryAfterParsing() {
        Duration max = Duration.ofSeconds(8);
        assertEquals(Optional.of(Duration.ofSeconds(2)), OpenAiCompatiblePolicy.retryAfter(Optional.of("2"), max));
        assertEquals(Optional.of(max), OpenAiCompatiblePolicy.retryAfter(Optional.of("120"), max));
        assertEquals(Optional.of(Duration.ZERO),
                OpenAiCompatiblePolicy.retryAfter(Optional.of("Wed, 21 Oct 2015 07:28:00 GMT"), max), "date in the past");
        assertEquals(Optional.empty(), OpenAiCompatiblePolicy.retryAfter(Optional.of("soon"), max));
        assertEquals(Optional.empty(), OpenAiCompatiblePolicy.retryAfter(Optional.empty(), max));
    }

    @Test
    void serverErrorShapes() {
        assertEquals("bad", ServerErrorText.of("{\"error\":{\"message\":\"bad\",\"type\":\"BadRequestError\"}}"));
        assertEquals("bad", ServerErrorText.of("{\"object\":\"error\",\"message\":\"bad\",\"code\":400}"));
        assertEquals("model not found", ServerErrorText.of("{\"error\":\"model not found\"}"));
        assertEquals("[\"body\",\"messages\"]: Field required",
                ServerErrorText.of("{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"messages\"],\"msg\":\"Field required\"}]}"));
        assertEquals("Bad Gateway", ServerErrorText.of("Bad Gateway\n"));
        assertEquals("(empty body)", ServerErrorText.of(""));
        String longBody = "x".repeat(2000);
        assertTrue(ServerErrorText.of(longBody).length() < 600);
        assertTrue(ServerErrorText.of(longBody).contains("(2000 chars)"));
    }
}
