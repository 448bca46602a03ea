package dev.agentswarm.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server of the machine's own installation (Debian's {@code postgresql} package),
 * private to one test: a fresh cluster made by {@code initdb} in a temporary folder, started on a free
 * port of 127.0.0.1 with its socket in that folder, and stopped by its pid and deleted on
 * {@link #close()} (or at JVM exit, if a test never gets there). As root, the server runs as the
 * {@code postgres} user, since PostgreSQL refuses to run as root.
 *
 * <p>{@link #available()} says whether the binaries are installed; {@code bin/test} installs them and
 * sets {@code AGENTSWARM_REQUIRE_POSTGRES=1}, under which a missing installation fails the tests
 * instead of skipping them.
 */
public final class PostgresServer implements AutoCloseable {

    public static final String REQUIRE_ENV = "AGENTSWARM_REQUIRE_POSTGRES";
    public static final String USER = "agentswarm";
    public static final String DATABASE = "agentswarm";

    private final Path home;
    private final Path bin;
    private final boolean root;
    private volatile Process server;
    private final int port;
    private final Thread reaper;

    private PostgresServer(Path home, Path bin, boolean root, Process server, int port) {
        this.home = home;
        this.bin = bin;
        this.root = root;
        this.server = server;
        this.port = port;
        this.reaper = new Thread(this::stop, "postgres-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** The folder holding initdb and postgres: the newest under /usr/lib/postgresql, or pg_config's. */
    public static Optional<Path> binaries() {
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("postgres")) && Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(PostgresServer::majorVersion));
                if (newest.isPresent()) return newest;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path bin = Path.of(dir.isEmpty() ? "." : dir);
            if (Files.isExecutable(bin.resolve("postgres")) && Files.isExecutable(bin.resolve("initdb"))) return Optional.of(bin);
        }
        return Optional.empty();
    }

    public static boolean available() {
        return binaries().isPresent();
    }

    /** Whether a missing installation must fail the test run rather than skip its PostgreSQL tests. */
    public static boolean required() {
        return "1".equals(System.getenv(REQUIRE_ENV));
    }

    /** Makes a fresh cluster and starts it; returns once it accepts connections. */
    public static PostgresServer start() throws IOException, InterruptedException {
        Path bin = binaries().orElseThrow(() -> new IllegalStateException(
                "PostgreSQL is not installed: apt-get install -y postgresql (bin/test does)"));
        boolean root = "root".equals(System.getProperty("user.name"));
        Path home = Files.createTempDirectory("agentswarm-pg-");
        Path data = home.resolve("data");
        Path socket = home.resolve("socket");
        Files.createDirectories(data);
        Files.createDirectories(socket);
        if (root) {
            // The server's own user must own its folders and reach them through the temporary folder.
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
            UserPrincipal postgres = home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            for (Path p : List.of(home, data, socket)) Files.setOwner(p, postgres);
        }
        List<String> initdb = new ArrayList<>(asServerUser(root));
        initdb.addAll(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "--auth=trust",
                "-E", "UTF8", "--locale=C", "--no-sync"));
        Process init = new ProcessBuilder(initdb).redirectErrorStream(true).start();
        String initOutput = new String(init.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!init.waitFor(120, TimeUnit.SECONDS) || init.exitValue() != 0) {
            init.destroyForcibly();
            deleteTree(home);
            throw new IOException("initdb failed: " + initOutput);
        }
        int port = freePort();
        PostgresServer started = new PostgresServer(home, bin, root, launch(home, bin, root, port), port);
        try {
            started.awaitReady(Duration.ofSeconds(60), home.resolve("server.log"));
            started.createDatabase();
            return started;
        } catch (IOException | RuntimeException e) {
            started.close();
            throw e;
        }
    }

    /** The server process on {@code port}, its output appended to {@code home/server.log}. */
    private static Process launch(Path home, Path bin, boolean root, int port) throws IOException {
        List<String> postgres = new ArrayList<>(asServerUser(root));
        postgres.addAll(List.of(bin.resolve("postgres").toString(), "-D", home.resolve("data").toString(), "-p", Integer.toString(port),
                "-k", home.resolve("socket").toString(), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=50",
                "-c", "logging_collector=off"));
        return new ProcessBuilder(postgres).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("server.log").toFile())).start();
    }

    /**
     * The database goes away: the server is stopped by its pid (fast shutdown, every session ended), its
     * data kept; {@link #restart()} brings it back on the same port.
     */
    public synchronized void stopServer() throws InterruptedException {
        terminate();
    }

    /** The journal settings (HOCON) of agentswarm's durable swarms on this server's database. */
    public String journalConfig() {
        return "agentswarm.persistence.database = postgres\n"
                + "pekko-persistence-jdbc.shared-databases.slick { profile = \"slick.jdbc.PostgresProfile$\", db { url = \""
                + jdbcUrl() + "\", user = \"" + USER + "\", password = \"\", driver = \"org.postgresql.Driver\" } }\n";
    }

    /** Starts the stopped server again on its port, with its data; returns once it accepts connections. */
    public synchronized void restart() throws IOException, InterruptedException {
        if (server.isAlive()) throw new IllegalStateException("the server on port " + port + " is running");
        server = launch(home, bin, root, port);
        awaitReady(Duration.ofSeconds(60), home.resolve("server.log"));
    }

    /** setpriv switches to the postgres user and execs, so the pid we hold is the server's own. */
    private static List<String> asServerUser(boolean root) {
        return root ? List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--") : List.of();
    }

    public int port() {
        return port;
    }

    public long pid() {
        return server.pid();
    }

    /** The JDBC URL of the test database; user {@link #USER}, no password (trust on the loopback). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, "");
    }

    private void awaitReady(Duration limit, Path log) throws IOException, InterruptedException {
        long until = System.nanoTime() + limit.toNanos();
        SQLException last = null;
        while (System.nanoTime() < until) {
            if (!server.isAlive()) throw new IOException("postgres exited (" + server.exitValue() + "): " + Files.readString(log));
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", USER, "")) {
                return;
            } catch (SQLException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new IOException("postgres did not accept connections within " + limit + ": " + last + "\n" + Files.readString(log));
    }

    private void createDatabase() throws IOException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", USER, "")) {
            c.createStatement().execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            throw new IOException("cannot create database " + DATABASE + ": " + e.getMessage(), e);
        }
    }

    /** Stops the server by its pid (fast shutdown: SIGINT, then SIGKILL after 20 s) and deletes its cluster. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: it stopped the server
        }
    }

    private synchronized void stop() {
        try {
            terminate();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteTree(home);
    }

    private void terminate() throws InterruptedException {
        if (server.isAlive()) {
            try {
                // SIGINT is PostgreSQL's fast shutdown: it ends sessions and exits without waiting for clients.
                new ProcessBuilder("kill", "-INT", Long.toString(server.pid())).start().waitFor(10, TimeUnit.SECONDS);
                if (!server.waitFor(20, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                    server.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (IOException e) {
                server.destroyForcibly();
            } catch (InterruptedException e) {
                server.destroyForcibly();
                throw e;
            }
        }
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) return;
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a temporary folder
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }
}
