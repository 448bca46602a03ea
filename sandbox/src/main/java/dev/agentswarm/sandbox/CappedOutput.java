package dev.agentswarm.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** One output stream, kept up to a cap; the rest is read (so the program never blocks on a full pipe) and counted. */
final class CappedOutput {

    private final int cap;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long dropped;

    CappedOutput(int cap) {
        this.cap = cap;
    }

    /** Reads {@code in} to its end (or until the process is killed), keeping the first {@code cap} bytes. */
    void drain(InputStream in) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                synchronized (this) {
                    int keep = (int) Math.max(0, Math.min(n, cap - kept.size()));
                    kept.write(buf, 0, keep);
                    dropped += n - keep;
                }
            }
        } catch (IOException e) {
            // The process was killed: keep what arrived.
        }
    }

    synchronized boolean cut() {
        return dropped > 0;
    }

    synchronized String text() {
        return withCutMark(kept.toString(StandardCharsets.UTF_8), dropped);
    }

    /** The kept text, and when some was dropped, a last line saying how much. */
    static String withCutMark(String kept, long dropped) {
        return dropped > 0 ? kept + "\n[… " + dropped + " more bytes cut]" : kept;
    }
}
