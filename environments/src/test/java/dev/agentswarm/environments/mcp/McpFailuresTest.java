package dev.agentswarm.environments.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** How failures read to the model and in the log. */
class McpFailuresTest {

    @Test
    void theMessageIsTheWrappedFailuresOwn() {
        assertEquals("boom", McpFailures.message(new CompletionException(new ExecutionException(new IllegalStateException("boom")))));
        assertEquals("IllegalStateException", McpFailures.message(new CompletionException(new IllegalStateException())));
    }

    @Test
    void theInnermostCauseIsDescribedWithItsClassUnlessItSaysItself() {
        assertEquals("timed out", McpFailures.describe(new CompletionException(new RuntimeException(new TimeoutException("x")))));
        assertEquals("Connection refused", McpFailures.describe(new RuntimeException("wrapper", new ConnectException("Connection refused"))));
        assertEquals("IllegalArgumentException: bad id", McpFailures.describe(new IllegalArgumentException("bad id")));
        assertEquals("NullPointerException", McpFailures.describe(new CompletionException(new NullPointerException())));
    }

    @Test
    void aStartFailureSaysWhetherTheUrlWasReachable() {
        McpSettings.Server url = McpSettings.fromConfig(ConfigFactory.parseString(
                "agentswarm.mcp.servers.web.url = \"http://127.0.0.1:9/mcp\"").withFallback(ConfigFactory.load()).resolve()).servers().get(0);
        assertEquals("could not be reached at http://127.0.0.1:9/mcp: down (is it running?)",
                McpFailures.startFailure(url, new CompletionException(new IOException("down"))));
        assertEquals("failed to start: IllegalStateException: no", McpFailures.startFailure(url, new IllegalStateException("no")));
    }

    @Test
    void durationsUnderASecondAreInMillisecondsAndLongerOnesInSeconds() {
        assertEquals("999 ms", McpFailures.millis(Duration.ofMillis(999)));
        assertEquals("1.0 s", McpFailures.millis(Duration.ofMillis(1000)));
        assertEquals("30.0 s", McpFailures.millis(Duration.ofSeconds(30)));
        assertEquals("1.3 s", McpFailures.millis(Duration.ofMillis(1250)));
    }
}
