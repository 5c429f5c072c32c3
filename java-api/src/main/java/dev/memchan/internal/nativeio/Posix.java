package dev.memchan.internal.nativeio;

import dev.memchan.MemchanException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every downcall memchan makes, in one place (the pattern of Lucene's PosixNativeAccess).
 *
 * <p>Each call that can fail captures {@code errno} through {@link Linker.Option#captureCallState}
 * and throws {@link ErrnoException} carrying it; callers turn that into a {@link MemchanException}
 * that says what was being done. The capture buffer is per thread, allocated once, so the calls on
 * the notification path ({@link #futexWake}, {@link #futexWait}) do not allocate.
 *
 * <p>Restricted FFM methods are used only in this package. When the JVM runs without
 * {@code --enable-native-access} for this module, the first use fails with an exception that says
 * which flag to add, instead of the JVM's generic warning.
 */
@SuppressWarnings("restricted")
public final class Posix {
    private Posix() {
    }

    // Linux x86-64 and aarch64 (asm-generic) values.
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_CLOEXEC = 02000000;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int SEEK_END = 2;
    // errno values of Linux (asm-generic/errno-base.h, errno.h): x86-64 and aarch64 share them
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EOPNOTSUPP = 95;
    public static final int ETIMEDOUT = 110;
    public static final short POLLIN = 1;

    private static final long SYS_FUTEX = "aarch64".equals(System.getProperty("os.arch")) ? 98 : 202;
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.global().allocate(CAPTURE_LAYOUT));

    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle FLOCK;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle FCHMOD;
    private static final MethodHandle FCHOWN;
    private static final MethodHandle LSEEK;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle KILL;
    private static final MethodHandle GETPID;
    private static final MethodHandle GETUID;
    private static final MethodHandle GETGID;
    private static final MethodHandle GETGROUPS;
    private static final MethodHandle UNLINK;
    private static final MethodHandle IOCTL;
    private static final MethodHandle POLL;
    private static final MethodHandle STRERROR;
    private static final MethodHandle SYSCALL6;

    static {
        NativeAccess.require();
        OPEN = capturing("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
        CLOSE = capturing("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
        FLOCK = capturing("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
        FTRUNCATE = capturing("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), -1);
        FCHMOD = capturing("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
        FCHOWN = capturing("fchown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), -1);
        LSEEK = capturing("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), -1);
        MMAP = capturing("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), -1);
        MUNMAP = capturing("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), -1);
        KILL = capturing("kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
        GETPID = plain("getpid", FunctionDescriptor.of(JAVA_INT));
        GETUID = plain("getuid", FunctionDescriptor.of(JAVA_INT));
        GETGID = plain("getgid", FunctionDescriptor.of(JAVA_INT));
        GETGROUPS = capturing("getgroups", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), -1);
        UNLINK = capturing("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS), -1);
        // ioctl(int, unsigned long, ...): the third argument is variadic.
        IOCTL = capturing("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), 2);
        POLL = capturing("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), -1);
        STRERROR = plain("strerror", FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, ValueLayout.JAVA_BYTE)), JAVA_INT));
        // long syscall(long number, ...): every further argument is variadic.
        SYSCALL6 = capturing("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG), 1);
    }

    private static MethodHandle capturing(String name, FunctionDescriptor fd, int firstVariadic) {
        Linker.Option[] options = firstVariadic >= 0
                ? new Linker.Option[]{CAPTURE_ERRNO, Linker.Option.firstVariadicArg(firstVariadic)}
                : new Linker.Option[]{CAPTURE_ERRNO};
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name)), fd, options);
    }

    private static MethodHandle plain(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name)), fd);
    }

    private static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** A downcall's Throwable as the unchecked exception to throw (an Error is thrown as it is). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** The C library's message for an errno value. */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int open(String path, int flags, int mode) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = CAPTURE.get();
            int fd = (int) OPEN.invokeExact(capture, arena.allocateFrom(path), flags | O_CLOEXEC, mode);
            if (fd < 0) {
                throw new ErrnoException("open " + path, errno(capture));
            }
            return fd;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void close(int fd) {
        try {
            int _ = (int) CLOSE.invokeExact(CAPTURE.get(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * flock(fd, LOCK_EX | LOCK_NB): false when another open file (of any process, this one included)
     * holds it. Released when the file is closed, also by the process's death.
     */
    public static boolean tryLockExclusive(int fd) throws ErrnoException {
        return tryFlock(fd, 2); // LOCK_EX
    }

    /**
     * flock(fd, LOCK_SH | LOCK_NB): false when another open file holds it exclusively. Turns an
     * exclusive lock of this file into a shared one.
     */
    public static boolean tryLockShared(int fd) throws ErrnoException {
        return tryFlock(fd, 1); // LOCK_SH
    }

    private static boolean tryFlock(int fd, int operation) throws ErrnoException {
        try {
            MemorySegment capture = CAPTURE.get();
            if ((int) FLOCK.invokeExact(capture, fd, operation | 4) == 0) { // | LOCK_NB
                return true;
            }
            int errno = errno(capture);
            if (errno == EAGAIN) {
                return false;
            }
            throw new ErrnoException("flock", errno);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void unlink(String path) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = CAPTURE.get();
            if ((int) UNLINK.invokeExact(capture, arena.allocateFrom(path)) != 0) {
                throw new ErrnoException("unlink " + path, errno(capture));
            }
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void ftruncate(int fd, long size) throws ErrnoException {
        check("ftruncate", () -> (int) FTRUNCATE.invokeExact(CAPTURE.get(), fd, size));
    }

    public static void fchmod(int fd, int mode) throws ErrnoException {
        check("fchmod", () -> (int) FCHMOD.invokeExact(CAPTURE.get(), fd, mode));
    }

    public static void fchown(int fd, int uid, int gid) throws ErrnoException {
        check("fchown", () -> (int) FCHOWN.invokeExact(CAPTURE.get(), fd, uid, gid));
    }

    /** Size of an open file (lseek to the end; the descriptor's offset is not used by memchan). */
    public static long fileSize(int fd) throws ErrnoException {
        try {
            MemorySegment capture = CAPTURE.get();
            long size = (long) LSEEK.invokeExact(capture, fd, 0L, SEEK_END);
            if (size < 0) {
                throw new ErrnoException("lseek", errno(capture));
            }
            return size;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Maps {@code length} bytes of {@code fd} at {@code offset}, shared. The returned segment is
     * bound to {@code arena}: closing the arena unmaps it, and any later access through the
     * segment fails with IllegalStateException instead of touching freed address space.
     */
    public static MemorySegment mmap(int fd, long offset, long length, boolean writable, Arena arena) throws ErrnoException {
        int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
        try {
            MemorySegment capture = CAPTURE.get();
            MemorySegment addr = (MemorySegment) MMAP.invokeExact(capture, MemorySegment.NULL, length, prot, MAP_SHARED, fd, offset);
            if (addr.address() == -1L) {
                throw new ErrnoException("mmap", errno(capture));
            }
            long address = addr.address();
            MemorySegment mapped = addr.reinterpret(length, arena, s -> munmap(address, length));
            return writable ? mapped : mapped.asReadOnly();
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void munmap(long address, long length) {
        try {
            int _ = (int) MUNMAP.invokeExact(CAPTURE.get(), MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getpid() {
        try {
            return (int) GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getuid() {
        try {
            return (int) GETUID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getgid() {
        try {
            return (int) GETGID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The process's supplementary group IDs. */
    public static int[] getgroups() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment list = arena.allocate(JAVA_INT, 1024);
            int n = (int) GETGROUPS.invokeExact(CAPTURE.get(), 1024, list);
            return n <= 0 ? new int[0] : list.asSlice(0, 4L * n).toArray(JAVA_INT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * True when a process with this pid exists and can still run: kill(pid, 0) is not ESRCH, and the
     * process is not a zombie. A killed process stays a zombie until its parent reaps it, which a busy
     * or hung parent may do late or never; it holds nothing and runs nothing, so it counts as gone.
     */
    public static boolean processExists(int pid) {
        int rc;
        MemorySegment capture = CAPTURE.get();
        try {
            rc = (int) KILL.invokeExact(capture, pid, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            return errno(capture) != ESRCH;
        }
        return !isZombie(pid);
    }

    /**
     * Whether /proc says {@code pid} is a zombie (state Z or X); false when /proc cannot tell (not
     * mounted, or the process went meanwhile, which the next kill(pid, 0) sees).
     */
    static boolean isZombie(int pid) {
        byte[] stat;
        try {
            stat = java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/" + pid + "/stat"));
        } catch (java.io.IOException | SecurityException e) {
            return false;
        }
        // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'
        for (int i = stat.length - 1; i > 0; i--) {
            if (stat[i] == ')') {
                byte state = i + 2 < stat.length ? stat[i + 2] : 0;
                return state == 'Z' || state == 'X';
            }
        }
        return false;
    }

    /** ioctl with a pointer argument; returns the non-negative result or throws with errno. */
    public static int ioctl(int fd, long request, MemorySegment arg) throws ErrnoException {
        try {
            MemorySegment capture = CAPTURE.get();
            int rc = (int) IOCTL.invokeExact(capture, fd, request, arg);
            if (rc < 0) {
                throw new ErrnoException("ioctl 0x" + Long.toHexString(request), errno(capture));
            }
            return rc;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * poll(2) on one descriptor for {@code events}; returns the revents, 0 on timeout. EINTR is
     * returned as 0 so callers simply re-check their condition.
     */
    public static int poll(int fd, short events, int timeoutMillis) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            return poll(pollfd(arena, fd, events), timeoutMillis);
        }
    }

    /** A {@code struct pollfd} for {@code fd} and {@code events} in {@code arena}, for {@link #poll(MemorySegment, int)}. */
    public static MemorySegment pollfd(Arena arena, int fd, short events) {
        MemorySegment pfd = arena.allocate(8, 4);
        pfd.set(JAVA_INT, 0, fd);
        pfd.set(ValueLayout.JAVA_SHORT, 4, events);
        return pfd;
    }

    /**
     * poll(2) on a caller's preallocated {@link #pollfd} (a loop that polls often allocates nothing);
     * returns the revents, 0 on timeout or EINTR.
     */
    public static int poll(MemorySegment pollfd, int timeoutMillis) throws ErrnoException {
        try {
            MemorySegment capture = CAPTURE.get();
            int rc = (int) POLL.invokeExact(capture, pollfd, 1L, timeoutMillis);
            if (rc < 0) {
                int e = errno(capture);
                if (e == EINTR) {
                    return 0;
                }
                throw new ErrnoException("poll", e);
            }
            return rc == 0 ? 0 : pollfd.get(ValueLayout.JAVA_SHORT, 6);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * FUTEX_WAIT (shared, not PRIVATE: the word is in a MAP_SHARED file mapping and the waker is
     * another process) while the 32-bit word at {@code word} equals {@code expected}, for at most
     * {@code timeoutNanos}. Returns normally on wake, timeout, EINTR or a changed value: callers
     * always re-check their condition.
     */
    public static void futexWait(MemorySegment word, int expected, long timeoutNanos, MemorySegment timespec) {
        timespec.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        timespec.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        try {
            long _ = (long) SYSCALL6.invokeExact(CAPTURE.get(), SYS_FUTEX, word.address(), (long) FUTEX_WAIT,
                    (long) expected, timespec.address(), 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** FUTEX_WAKE every waiter on the 32-bit word at {@code word}; returns how many were woken. */
    public static int futexWake(MemorySegment word) {
        try {
            return (int) (long) SYSCALL6.invokeExact(CAPTURE.get(), SYS_FUTEX, word.address(), (long) FUTEX_WAKE,
                    (long) Integer.MAX_VALUE, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @FunctionalInterface
    private interface IntCall {
        int call() throws Throwable;
    }

    private static void check(String what, IntCall call) throws ErrnoException {
        try {
            if (call.call() != 0) {
                throw new ErrnoException(what, errno(CAPTURE.get()));
            }
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
