package dev.agentswarm.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A cgroup v2 group per sandbox slot and session, below the JVM's own group: {@code memory.max}
 * caps all of a slot's processes together (the rlimit on address space caps one process, so a slot
 * of 64 processes could hold 64 times it), {@code pids.max} caps its processes whatever their
 * uid, swap is off, and at the end of a run everything left in the group is killed, daemons
 * included. Only where the machine allows it: a cgroup v2 hierarchy with the memory and pids
 * controllers, writable by this user, whose JVM group may hand them to children (cgroup v2 gives
 * controllers only below a group without processes of its own, so the JVM must run in the root
 * group or a delegated group whose parent it can write). Otherwise {@link #open} says why not, and
 * the sandbox keeps to rlimits alone.
 */
final class SlotCgroups implements AutoCloseable {

    private final Path group;
    private final List<Path> made = new ArrayList<>();
    /** Removes the groups when the JVM exits with its sandbox still open (the node's shared one is never closed). */
    private final Thread atExit = new Thread(this::removeGroups, "agentswarm-sandbox-cgroups");

    private SlotCgroups(Path group) {
        this.group = group;
    }

    /** The groups, or why there are none. */
    sealed interface Opened permits Ready, Unavailable {}

    record Ready(SlotCgroups cgroups) implements Opened {}

    record Unavailable(String reason) implements Opened {}

    /** This JVM's cgroup v2 folder from {@code /proc/self/mountinfo} and {@code /proc/self/cgroup}, or why none. */
    static Opened openForThisProcess(String name, int groups, long memoryMax, int pidsMax) {
        try {
            Path mount = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] halves = line.split(" - ", 2);
                if (halves.length == 2 && halves[1].startsWith("cgroup2 ")) mount = Path.of(halves[0].split(" ")[4]);
            }
            if (mount == null) return new Unavailable("no cgroup v2 hierarchy is mounted");
            String own = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::")) own = line.substring(3);
            }
            if (own == null) return new Unavailable("this process is in no cgroup v2 group");
            return open(mount.resolve(own.replaceFirst("^/+", "")), name, groups, memoryMax, pidsMax);
        } catch (IOException | RuntimeException e) {
            return new Unavailable("cannot read this process's cgroups: " + e.getMessage());
        }
    }

    /**
     * Makes {@code parent/name/slot-0 … slot-(groups-1)}, each with these limits, after turning the
     * memory and pids controllers on for the children of {@code parent}; undoes what it made on failure.
     */
    static Opened open(Path parent, String name, int groups, long memoryMax, int pidsMax) {
        String controllers;
        try {
            controllers = Files.readString(parent.resolve("cgroup.controllers")).strip();
        } catch (IOException e) {
            return new Unavailable("cannot read " + parent.resolve("cgroup.controllers") + ": " + e.getMessage());
        }
        List<String> have = List.of(controllers.split("\\s+"));
        if (!have.contains("memory") || !have.contains("pids")) {
            return new Unavailable("the cgroup v2 group " + parent + " offers the controllers [" + controllers + "], not memory and pids");
        }
        SlotCgroups c = new SlotCgroups(parent.resolve(name));
        try {
            c.enableControllers(parent);
            c.mkdir(c.group);
            c.enableControllers(c.group);
            for (int i = 0; i < groups; i++) {
                Path slot = c.slot(i);
                c.mkdir(slot);
                write(slot.resolve("memory.max"), Long.toString(memoryMax));
                write(slot.resolve("pids.max"), Integer.toString(pidsMax));
                if (Files.exists(slot.resolve("memory.swap.max"))) write(slot.resolve("memory.swap.max"), "0");
            }
            Runtime.getRuntime().addShutdownHook(c.atExit);
            return new Ready(c);
        } catch (IOException e) {
            c.removeGroups();
            String hint = e.getMessage() != null && e.getMessage().contains("Device or resource busy")
                    ? " (the group holds processes: cgroup v2 gives controllers only below a group without any; run the node in a"
                    + " delegated group of its own, e.g. systemd-run --scope -p Delegate=yes)" : "";
            return new Unavailable("cannot set up cgroups under " + parent + ": " + e.getMessage() + hint);
        }
    }

    /** The folder of group {@code index}; its {@code cgroup.procs} is where a slot's first process writes itself. */
    Path slot(int index) {
        return group.resolve("slot-" + index);
    }

    /** How many times the kernel's OOM killer has killed in group {@code index} so far. */
    long oomKills(int index) {
        try {
            for (String line : Files.readAllLines(slot(index).resolve("memory.events"))) {
                if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring(9).strip());
            }
        } catch (IOException | NumberFormatException e) {
            // The group is gone (closed): nothing counted.
        }
        return 0;
    }

    /** Kills every process left in group {@code index} (a daemon that left its parent, a process the tree walk missed). */
    void killAll(int index) {
        Path slot = slot(index);
        try {
            if (Files.exists(slot.resolve("cgroup.kill"))) {
                write(slot.resolve("cgroup.kill"), "1");
                return;
            }
            // Before Linux 5.14: one by one, until none is left (a process may fork while its siblings die).
            for (int round = 0; round < 50; round++) {
                List<String> pids = Files.readAllLines(slot.resolve("cgroup.procs"));
                if (pids.isEmpty()) return;
                for (String pid : pids) ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException | NumberFormatException e) {
            // Gone already.
        }
    }

    /** Kills what is left in every group and removes them. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // The JVM is exiting (the hook runs or ran), or the hook was never added.
        }
        removeGroups();
    }

    private synchronized void removeGroups() {
        for (int i = made.size() - 1; i >= 0; i--) {
            Path dir = made.get(i);
            if (!dir.equals(group)) killAll(Integer.parseInt(dir.getFileName().toString().substring(5)));
            for (int attempt = 0; attempt < 20; attempt++) {
                try {
                    Files.deleteIfExists(dir); // rmdir: a group folder's files are the kernel's, not removable one by one
                    break;
                } catch (IOException e) {
                    try {
                        Thread.sleep(50); // its last processes are still exiting
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        made.clear();
    }

    private void mkdir(Path dir) throws IOException {
        Files.createDirectory(dir);
        made.add(dir);
    }

    private void enableControllers(Path dir) throws IOException {
        Path control = dir.resolve("cgroup.subtree_control");
        String on = Files.exists(control) ? Files.readString(control) : ""; // the kernel makes it with the folder
        List<String> enabled = List.of(on.strip().split("\\s+"));
        if (enabled.contains("memory") && enabled.contains("pids")) return;
        write(dir.resolve("cgroup.subtree_control"), "+memory +pids");
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII);
    }
}
