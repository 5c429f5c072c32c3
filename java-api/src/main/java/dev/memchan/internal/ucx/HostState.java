package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What the processes of one host share about their host's stream from the hub, in a small shared-memory file
 * beside the host's fabric ({@code /dev/shm/memchan-ucxhost-NAME}): the hub instance the host's fabric belongs
 * to, the host sequence applied so far, and the lock under which a process applies the next message (its pid;
 * a dead holder's lock is taken over). A process waiting for a sequence to be applied (a barrier's or a remote
 * answer's watermark) sleeps on the applied word's low half.
 */
final class HostState implements AutoCloseable {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final long APPLIED = 0;
    private static final long HUB_ID = 8;
    private static final long LOCK = 16;
    private static final long SIZE = 24;
    /** How long a waiter for the lock sleeps before it checks again whether the holder lives. */
    private static final long LOCK_RECHECK_NANOS = 10_000_000L;

    private final String path;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment words;
    private final MemorySegment lockTimespec;
    private final int pid = Posix.getpid();

    private HostState(String path, int fd) throws ErrnoException {
        this.path = path;
        try {
            this.words = Posix.mmap(fd, 0, SIZE, true, arena);
            this.lockTimespec = arena.allocate(16, 8);
        } catch (ErrnoException e) {
            arena.close();
            throw e;
        } finally {
            Posix.close(fd);
        }
    }

    static String pathOf(String hostFabricName) {
        return "/dev/shm/memchan-ucxhost-" + hostFabricName;
    }

    /** A fresh file for hub instance {@code hubId} (the first process of the host replaces any old one). */
    static HostState create(String hostFabricName, long hubId) {
        String path = pathOf(hostFabricName);
        try {
            try {
                Posix.unlink(path);
            } catch (ErrnoException e) {
                if (e.errno() != Posix.ENOENT) {
                    throw e;
                }
            }
            int fd = Posix.open(path, Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL | Posix.O_CLOEXEC, 0660);
            Posix.ftruncate(fd, SIZE);
            HostState s = new HostState(path, fd);
            LONG.setVolatile(s.words, HUB_ID, hubId);
            return s;
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot create the host state " + path + ": " + e.getMessage(), e);
        }
    }

    /** The host's file, made by its first process for hub instance {@code hubId}; BAD_FORMAT when it is another hub's. */
    static HostState open(String hostFabricName, long hubId) {
        String path = pathOf(hostFabricName);
        HostState s;
        try {
            s = new HostState(path, Posix.open(path, Posix.O_RDWR | Posix.O_CLOEXEC, 0));
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot open the host state " + path + ": " + e.getMessage(), e);
        }
        if ((long) LONG.getVolatile(s.words, HUB_ID) != hubId) {
            s.close();
            throw new MemchanException(Kind.BAD_FORMAT, path + " belongs to another hub instance than the one this node joined");
        }
        return s;
    }

    long applied() {
        return (long) LONG.getVolatile(words, APPLIED);
    }

    /**
     * Takes the host's apply lock: one process at a time applies the host's stream. A holder whose process is gone
     * (it died applying) loses it; the next holder applies again from the applied sequence. Called by one thread
     * per process at a time (its worker's progress thread).
     */
    void lock() {
        MemorySegment word = words.asSlice(LOCK, 4);
        while (!INT.compareAndSet(words, LOCK, 0, pid)) {
            int holder = (int) INT.getVolatile(words, LOCK);
            if (holder != 0 && holder != pid && !Posix.processExists(holder)) {
                INT.compareAndSet(words, LOCK, holder, 0);
                continue;
            }
            if (holder != 0) {
                Posix.futexWait(word, holder, LOCK_RECHECK_NANOS, lockTimespec);
            }
        }
    }

    void unlock() {
        INT.setVolatile(words, LOCK, 0);
        Posix.futexWake(words.asSlice(LOCK, 4));
    }

    /** The host's stream is applied up to {@code hostSeq} (under the lock): wakes the waiters. */
    void setApplied(long hostSeq) {
        LONG.setVolatile(words, APPLIED, hostSeq);
        Posix.futexWake(words.asSlice(APPLIED, 4));
    }

    /**
     * Returns once {@code hostSeq} is applied on this host; TIMEOUT naming {@code what} at {@code deadline}
     * ({@link System#nanoTime}); the exception {@code failure} gives, if any, as soon as it gives one.
     */
    void awaitApplied(long hostSeq, long deadline, String what, Supplier<MemchanException> failure) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment timespec = scratch.allocate(16, 8);
            MemorySegment low = words.asSlice(APPLIED, 4);
            while (true) {
                long applied = applied();
                if (applied >= hostSeq) {
                    return;
                }
                MemchanException failed = failure.get();
                if (failed != null) {
                    throw failed;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new MemchanException(Kind.TIMEOUT, what + ": this host has applied its stream up to " + applied
                            + ", not yet to " + hostSeq);
                }
                // bounded sleeps: the failure check runs again when the hub goes away without a wake-up
                Posix.futexWait(low, (int) applied, Math.min(left, 50_000_000L), timespec);
            }
        }
    }

    String path() {
        return path;
    }

    @Override
    public void close() {
        arena.close();
    }
}
