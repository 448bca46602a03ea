package dev.agentswarm.orchestrator.swarm;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * The format version of what a swarm journal holds, its events ({@link SwarmEvent}) and snapshots
 * ({@link SwarmLedger.Snapshot}), and the one check every reader of them makes: a journal written by a
 * newer build is refused by name, never half read (an older build would drop what it does not know,
 * then resume a different swarm and write after it).
 *
 * <p>A serializer writes {@link #VERSION} beside each event and snapshot, and calls
 * {@link #checkReadable} with the version it finds before it decodes anything else. With Jackson (the
 * binding of {@code CborSerializable}) that is {@link Jackson}: the version is the manifest's
 * {@code #N} suffix (a manifest without one is format 1), and the migration is registered for every
 * event and snapshot class in {@code pekko.serialization.jackson.migrations} (orchestrator's
 * reference.conf). Raise {@link #VERSION} when a change cannot be read by the previous build, and teach
 * the readers the older formats still accepted.
 */
public final class JournalFormat {

    /** The format this build writes, and the newest it reads. */
    public static final int VERSION = 1;

    private JournalFormat() {}

    /** A journal's event or snapshot in a format newer than this build reads. */
    public static final class NewerThanThisBuild extends IllegalStateException {
        private final int found;
        private final String what;

        NewerThanThisBuild(int found, String what) {
            super(what + " is in journal format " + found + ", and this build reads format " + VERSION + " and older");
            this.found = found;
            this.what = what;
        }

        public int found() {
            return found;
        }

        /** What carried the version: the event's or snapshot's type. */
        public String what() {
            return what;
        }
    }

    /**
     * Checks the format version found on {@code what} (an event or snapshot type, for the message).
     * @throws NewerThanThisBuild when it is newer than {@link #VERSION}
     * @throws IllegalArgumentException when it is not a version at all (below 1)
     */
    public static void checkReadable(int found, String what) {
        if (found > VERSION) throw new NewerThanThisBuild(found, what);
        if (found < 1) throw new IllegalArgumentException(what + " has journal format " + found + ", which no build writes");
    }

    /** The format refusal somewhere in {@code failure}'s causes (a journal plugin wraps what its serializer threw), or null. */
    public static NewerThanThisBuild newerFormatIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NewerThanThisBuild n) return n;
        }
        return null;
    }

    /**
     * The version check for Pekko's Jackson serializer. It declares every later version supported, so
     * the serializer hands a newer one here instead of failing with a message of its own, and refuses it
     * through {@link #checkReadable}; older ones are read as they are (format 1 is the only one yet).
     */
    public static final class Jackson extends JacksonMigration {
        @Override
        public int currentVersion() {
            return VERSION;
        }

        @Override
        public int supportedForwardVersion() {
            return Integer.MAX_VALUE;
        }

        @Override
        public String transformClassName(int fromVersion, String className) {
            checkReadable(fromVersion, className.substring(className.lastIndexOf('.') + 1));
            return className;
        }

        @Override
        public JsonNode transform(int fromVersion, JsonNode json) {
            checkReadable(fromVersion, "a journal entry");
            return json;
        }
    }
}
