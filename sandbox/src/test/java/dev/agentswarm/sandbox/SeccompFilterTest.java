package dev.agentswarm.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentswarm.sandbox.SeccompFilter.Arch;
import dev.agentswarm.sandbox.SeccompFilter.Instruction;
import dev.agentswarm.sandbox.SeccompFilter.Syscall;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The deny-list program run by a small classic-BPF interpreter over made-up system calls, on both
 * architectures; the numbers checked against the kernel headers where they are installed.
 */
class SeccompFilterTest {

    private static final int ALLOW = SeccompFilter.RET_ALLOW;
    private static final int EPERM = SeccompFilter.RET_ERRNO | SeccompFilter.EPERM;
    private static final int ENOSYS = SeccompFilter.RET_ERRNO | SeccompFilter.ENOSYS;

    /** Runs the program as the kernel would on {@code struct seccomp_data {nr, arch, ip, args[6]}}. */
    static int run(byte[] program, int arch, int nr, long arg0) {
        ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        data.putInt(0, nr).putInt(4, arch).putLong(16, arg0);
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        List<Instruction> p = new ArrayList<>();
        while (code.hasRemaining()) p.add(new Instruction(code.getShort(), code.get() & 0xff, code.get() & 0xff, code.getInt()));
        int a = 0;
        for (int pc = 0; pc < p.size(); ) {
            Instruction i = p.get(pc);
            switch (i.code()) {
                case SeccompFilter.LD_W_ABS -> {
                    a = data.getInt(i.k());
                    pc++;
                }
                case SeccompFilter.JEQ_K -> pc += 1 + (a == i.k() ? i.jt() : i.jf());
                case SeccompFilter.JGE_K -> pc += 1 + (Integer.compareUnsigned(a, i.k()) >= 0 ? i.jt() : i.jf());
                case SeccompFilter.JSET_K -> pc += 1 + ((a & i.k()) != 0 ? i.jt() : i.jf());
                case SeccompFilter.RET_K -> {
                    return i.k();
                }
                default -> throw new AssertionError("unexpected opcode " + i.code() + " at " + pc);
            }
        }
        throw new AssertionError("the program ran off its end");
    }

    @Test
    void deniedCallsGetEpermAndOthersPassOnBothArchitectures() {
        for (Arch arch : Arch.values()) {
            byte[] program = SeccompFilter.program(arch);
            assertEquals(0, program.length % 8);
            for (Syscall s : SeccompFilter.DENIED) {
                if (s.number(arch) >= 0) assertEquals(EPERM, run(program, arch.audit, s.number(arch), 0), arch + " " + s.name());
            }
            // read, write, openat, execve, exit_group, mmap, futex: what every interpreter needs.
            int[] needed = arch == Arch.X86_64 ? new int[] {0, 1, 257, 59, 231, 9, 202} : new int[] {63, 64, 56, 221, 94, 222, 98};
            for (int nr : needed) assertEquals(ALLOW, run(program, arch.audit, nr, 0), arch + " syscall " + nr);
        }
    }

    @Test
    void cloneMakesProcessesAndThreadsButNoNamespaces() {
        for (Arch arch : Arch.values()) {
            byte[] program = SeccompFilter.program(arch);
            int clone = SeccompFilter.CLONE.number(arch);
            long fork = 0x01200011L; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, as glibc's fork
            long thread = 0x003d0f00L; // CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM | SETTLS | PARENT_SETTID | CHILD_CLEARTID
            assertEquals(ALLOW, run(program, arch.audit, clone, fork), arch + " fork");
            assertEquals(ALLOW, run(program, arch.audit, clone, thread), arch + " thread");
            for (long ns : new long[] {0x10000000L, 0x20000000L, 0x40000000L, 0x00020000L, 0x04000000L, 0x08000000L, 0x02000000L, 0x80L}) {
                assertEquals(EPERM, run(program, arch.audit, clone, fork | ns), arch + " clone with namespace flag " + Long.toHexString(ns));
            }
            // clone3's flags sit behind a pointer the filter cannot follow: ENOSYS sends the C library back to clone.
            assertEquals(ENOSYS, run(program, arch.audit, SeccompFilter.CLONE3.number(arch), 0), arch + " clone3");
        }
    }

    @Test
    void aForeignArchitectureIsKilledAndX32CallsAreRefused() {
        byte[] x86 = SeccompFilter.program(Arch.X86_64);
        int i386 = 0x40000003;
        assertEquals(SeccompFilter.RET_KILL_PROCESS, run(x86, i386, 11, 0), "an int 0x80 call from a 64-bit process");
        assertEquals(SeccompFilter.RET_KILL_PROCESS, run(x86, Arch.AARCH64.audit, 0, 0));
        // x32's unshare is 272 | the x32 bit: it must not slip past the number check.
        assertEquals(EPERM, run(x86, Arch.X86_64.audit, 0x40000000 | 272, 0));
        assertEquals(EPERM, run(x86, Arch.X86_64.audit, 0x40000000, 0));
        // aarch64 has no x32: its numbers are all below 0x40000000 anyway, and the check is not there.
        assertEquals(ALLOW, run(SeccompFilter.program(Arch.AARCH64), Arch.AARCH64.audit, 63, 0));
    }

    @Test
    void theNumbersAreTheKernelsWhereItsHeadersAreInstalled() throws Exception {
        int checked = 0;
        Path x86 = Path.of("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
        Path generic = Path.of("/usr/include/asm-generic/unistd.h");
        List<Syscall> all = new ArrayList<>(SeccompFilter.DENIED);
        all.add(SeccompFilter.CLONE);
        all.add(SeccompFilter.CLONE3);
        for (Syscall s : all) {
            if (Files.exists(x86) && s.x86_64() >= 0) {
                assertEquals(s.x86_64(), number(Files.readString(x86), s.name()), "x86_64 " + s.name());
                checked++;
            }
            if (Files.exists(generic) && s.aarch64() >= 0) {
                assertEquals(s.aarch64(), number(Files.readString(generic), s.name()), "aarch64 " + s.name());
                checked++;
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(checked > 0, "no kernel headers here (linux-libc-dev) to check the numbers against");
        assertTrue(checked >= SeccompFilter.DENIED.size());
    }

    /** {@code #define __NR_name N} (or asm-generic's {@code __NR3264_name}). */
    private static int number(String header, String name) {
        Matcher m = Pattern.compile("#define __NR(?:3264)?_" + name + "\\s+(\\d+)").matcher(header);
        assertTrue(m.find(), name + " is not in the header");
        return Integer.parseInt(m.group(1));
    }
}
