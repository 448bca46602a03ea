package dev.agentswarm.sandbox;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A seccomp deny-list as the classic BPF program bubblewrap's {@code --seccomp FD} loads: the
 * architecture checked (a foreign one, such as i386 calls from a 64-bit process, kills the
 * process; x32 numbers on x86_64 are refused), then each denied system call answered EPERM, and
 * everything else allowed. A deny-list, not an allow-list: interpreters and compilers need a wide
 * and changing set of calls, while the calls below are the ones no test program needs and kernel
 * exploits and sandbox escapes do (namespaces, mounts, kernel modules, BPF, perf, userfaultfd,
 * io_uring, ptrace of a neighbour, keyrings, the clock). {@code clone} with a namespace flag is
 * refused too; {@code clone3}, whose flags a filter cannot read, answers ENOSYS so that the C
 * library falls back to {@code clone}, as container runtimes do.
 */
public final class SeccompFilter {

    /** The architectures with their audit number ({@code AUDIT_ARCH_*}); both little-endian. */
    public enum Arch {
        X86_64(0xC000003E), AARCH64(0xC00000B7);

        final int audit;

        Arch(int audit) {
            this.audit = audit;
        }

        /** This JVM's architecture, or null where no filter is built (the sandbox then runs without one, and says so). */
        public static Arch host() {
            return switch (System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)) {
                case "amd64", "x86_64" -> X86_64;
                case "aarch64", "arm64" -> AARCH64;
                default -> null;
            };
        }
    }

    /** A denied system call with its number on each architecture (-1: none there). */
    record Syscall(String name, int x86_64, int aarch64) {
        int number(Arch arch) {
            return arch == Arch.X86_64 ? x86_64 : aarch64;
        }
    }

    /** Numbers from the kernel's unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64). */
    static final List<Syscall> DENIED = List.of(
            new Syscall("unshare", 272, 97), new Syscall("setns", 308, 268),
            new Syscall("mount", 165, 40), new Syscall("umount2", 166, 39), new Syscall("pivot_root", 155, 41),
            new Syscall("chroot", 161, 51), new Syscall("mount_setattr", 442, 442), new Syscall("open_tree", 428, 428),
            new Syscall("move_mount", 429, 429), new Syscall("fsopen", 430, 430), new Syscall("fsconfig", 431, 431),
            new Syscall("fsmount", 432, 432), new Syscall("fspick", 433, 433),
            new Syscall("ptrace", 101, 117), new Syscall("process_vm_readv", 310, 270), new Syscall("process_vm_writev", 311, 271),
            new Syscall("kexec_load", 246, 104), new Syscall("kexec_file_load", 320, 294), new Syscall("init_module", 175, 105),
            new Syscall("finit_module", 313, 273), new Syscall("delete_module", 176, 106),
            new Syscall("bpf", 321, 280), new Syscall("perf_event_open", 298, 241), new Syscall("userfaultfd", 323, 282),
            new Syscall("io_uring_setup", 425, 425), new Syscall("io_uring_enter", 426, 426), new Syscall("io_uring_register", 427, 427),
            new Syscall("keyctl", 250, 219), new Syscall("add_key", 248, 217), new Syscall("request_key", 249, 218),
            new Syscall("acct", 163, 89), new Syscall("swapon", 167, 224), new Syscall("swapoff", 168, 225),
            new Syscall("reboot", 169, 142), new Syscall("syslog", 103, 116), new Syscall("quotactl", 179, 60),
            new Syscall("open_by_handle_at", 304, 265), new Syscall("name_to_handle_at", 303, 264),
            new Syscall("settimeofday", 164, 170), new Syscall("clock_settime", 227, 112), new Syscall("adjtimex", 159, 171),
            new Syscall("clock_adjtime", 305, 266), new Syscall("lookup_dcookie", 212, 18),
            new Syscall("iopl", 172, -1), new Syscall("ioperm", 173, -1), new Syscall("uselib", 134, -1));

    static final Syscall CLONE = new Syscall("clone", 56, 220);
    static final Syscall CLONE3 = new Syscall("clone3", 435, 435);
    /** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME: clone's flags are its first argument on both. */
    static final int NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;
    /** x32 system calls on x86_64 carry this bit in their number. */
    static final int X32_SYSCALL_BIT = 0x40000000;

    static final int EPERM = 1;
    static final int ENOSYS = 38;
    static final int RET_KILL_PROCESS = 0x80000000;
    static final int RET_ERRNO = 0x00050000;
    static final int RET_ALLOW = 0x7fff0000;

    // Classic BPF opcodes (linux/filter.h), and the offsets in struct seccomp_data.
    static final short LD_W_ABS = 0x20;
    static final short JEQ_K = 0x15;
    static final short JGE_K = 0x35;
    static final short JSET_K = 0x45;
    static final short RET_K = 0x06;
    static final int OFFSET_NR = 0;
    static final int OFFSET_ARCH = 4;
    /** The low 32 bits of args[0] (little-endian). */
    static final int OFFSET_ARG0 = 16;

    private SeccompFilter() {}

    /** One {@code struct sock_filter}. */
    record Instruction(short code, int jt, int jf, int k) {}

    /** The program as instructions, for reading and for tests. */
    static List<Instruction> instructions(Arch arch) {
        List<Integer> denied = new ArrayList<>();
        for (Syscall s : DENIED) if (s.number(arch) >= 0) denied.add(s.number(arch));
        boolean x32 = arch == Arch.X86_64;
        // Checks after "load nr": x32 bit (x86_64 only), each denied call, clone3, clone; then
        // "load arg0", "jset", and the three returns ALLOW, EPERM, ENOSYS.
        int checks = (x32 ? 1 : 0) + denied.size() + 2;
        int allow = 4 + checks + 2; // after the arch check (3), "load nr", the checks, "load arg0" and "jset"
        int eperm = allow + 1;
        int enosys = allow + 2;
        List<Instruction> p = new ArrayList<>();
        p.add(new Instruction(LD_W_ABS, 0, 0, OFFSET_ARCH));
        p.add(new Instruction(JEQ_K, 1, 0, arch.audit));
        p.add(new Instruction(RET_K, 0, 0, RET_KILL_PROCESS));
        p.add(new Instruction(LD_W_ABS, 0, 0, OFFSET_NR));
        if (x32) p.add(jump(p.size(), JGE_K, X32_SYSCALL_BIT, eperm, p.size() + 1));
        for (int nr : denied) p.add(jump(p.size(), JEQ_K, nr, eperm, p.size() + 1));
        p.add(jump(p.size(), JEQ_K, CLONE3.number(arch), enosys, p.size() + 1));
        p.add(jump(p.size(), JEQ_K, CLONE.number(arch), p.size() + 1, allow));
        p.add(new Instruction(LD_W_ABS, 0, 0, OFFSET_ARG0));
        p.add(jump(p.size(), JSET_K, NAMESPACE_FLAGS, eperm, allow));
        p.add(new Instruction(RET_K, 0, 0, RET_ALLOW));
        p.add(new Instruction(RET_K, 0, 0, RET_ERRNO | EPERM));
        p.add(new Instruction(RET_K, 0, 0, RET_ERRNO | ENOSYS));
        if (p.size() != enosys + 1) throw new IllegalStateException("seccomp program layout is off: " + p.size());
        return p;
    }

    /** A conditional jump at {@code at} to absolute targets, as the relative offsets BPF takes (at most 255 ahead). */
    private static Instruction jump(int at, short code, int k, int ifTrue, int ifFalse) {
        int jt = ifTrue - at - 1;
        int jf = ifFalse - at - 1;
        if (jt < 0 || jt > 255 || jf < 0 || jf > 255) throw new IllegalStateException("seccomp jump out of range at " + at);
        return new Instruction(code, jt, jf, k);
    }

    /** The program in the bytes the kernel reads: 8 bytes per instruction, little-endian (both architectures are). */
    public static byte[] program(Arch arch) {
        List<Instruction> p = instructions(arch);
        ByteBuffer b = ByteBuffer.allocate(p.size() * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (Instruction i : p) {
            b.putShort(i.code()).put((byte) i.jt()).put((byte) i.jf()).putInt(i.k());
        }
        return b.array();
    }
}
