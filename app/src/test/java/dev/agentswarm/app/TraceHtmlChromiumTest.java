package dev.agentswarm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace page in a real browser: headless Chromium loads it, runs its script, and dumps the DOM. Skipped where Chromium
 * is not installed, unless {@code AGENTSWARM_REQUIRE_CHROMIUM=1} (as in CI).
 */
class TraceHtmlChromiumTest {

    @Test
    void rendersEveryAgentWithoutErrorsAndRunsNoTraceContent(@TempDir Path dir) throws Exception {
        Path chromium = chromium();
        Path page = dir.resolve("trace.html");
        Files.writeString(page, TraceHtml.render(TraceHtmlTest.TITLE, TraceHtmlTest.sample()));
        Path dom = dir.resolve("dom.html");
        Path log = dir.resolve("chromium.log");
        Files.createDirectories(dir.resolve("profile"));
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--user-data-dir=" + dir.resolve("profile"), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                "--dump-dom", page.toUri().toString())
                .redirectOutput(dom.toFile()).redirectError(log.toFile()).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) fail("chromium did not finish in 60 s; its log:\n" + Files.readString(log));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = Files.readString(dom);
        String err = Files.readString(log);
        assertEquals(0, p.exitValue(), err);

        Matcher errors = Pattern.compile("<div id=\"errors\">(.*?)</div>", Pattern.DOTALL).matcher(out);
        assertTrue(errors.find(), "the page has #errors:\n" + out);
        assertEquals("", errors.group(1), "the page's script reported errors");
        Matcher body = Pattern.compile("<body[^>]*\\bdata-rendered=\"(\\d+)\"").matcher(out);
        assertTrue(body.find(), "the page's script finished: " + err);
        assertEquals(TraceHtmlTest.AGENTS.size(), Integer.parseInt(body.group(1)));
        for (String agent : TraceHtmlTest.AGENTS) assertTrue(out.contains("data-agent=\"" + agent + "\""), "a row for " + agent);

        // The hostile messages are text on the page and never ran: the title is ours, the body unmarked, no <img> exists.
        assertTrue(out.contains("<title>Run &lt;1&gt; &amp; \"quotes\"</title>"), "title untouched");
        assertFalse(out.contains("pwned=\"") || out.contains("data-pwned"), "no onerror handler ran");
        assertFalse(out.contains("<img"), "no element was made from trace text");
        assertTrue(out.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), "shown as text");
        // The console stays silent: no uncaught error, and no inline script the page's policy had to block.
        List<String> console = err.lines().filter(l -> l.contains("CONSOLE")).toList();
        assertEquals(List.of(), console);
    }

    /** /usr/bin/chromium or chromium on PATH; skips (or fails where required) when there is none. */
    private static Path chromium() {
        Path found = null;
        if (Files.isExecutable(Path.of("/usr/bin/chromium"))) found = Path.of("/usr/bin/chromium");
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            if (found == null && !d.isEmpty() && Files.isExecutable(Path.of(d, "chromium"))) found = Path.of(d, "chromium");
        if (found == null && "1".equals(System.getenv("AGENTSWARM_REQUIRE_CHROMIUM")))
            fail("AGENTSWARM_REQUIRE_CHROMIUM=1 but no chromium is installed: apt-get install -y chromium");
        Assumptions.assumeTrue(found != null, "chromium is not installed (apt-get install -y chromium); skipping the browser test");
        return found;
    }
}
