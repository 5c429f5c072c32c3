package dev.memchan.internal.local;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static dev.memchan.internal.local.NodeLocalDescriptor.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * This process's mapping of its node's local table ({@link NodeLocalDescriptor}): the processes of the
 * node, what each holds of the directory and of the pages, and the node mutexes in front of the node's
 * lock bids. One per backend of a process; every change is made under the table mutex
 * ({@link #locked}).
 */
public final class NodeLocal implements AutoCloseable {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final VarHandle BYTE = JAVA_BYTE.varHandle();

    private final String path;
    private final int pageSize;
    private final int pageCount;
    private final int capacity;
    private final int pid = Posix.getpid();
    private final Arena arena;
    private final MemorySegment table;
    private final ReentrantLock threads = new ReentrantLock();

    private NodeLocal(String path, int pageSize, int pageCount, Arena arena, MemorySegment table) {
        this.path = path;
        this.pageSize = pageSize;
        this.pageCount = pageCount;
        this.capacity = directoryCapacity(pageSize);
        this.arena = arena;
        this.table = table;
    }

    /**
     * Where the tables live: /dev/shm, or /tmp on a machine without it (a minimal guest); the same
     * directory for every process of the host.
     */
    private static final String DIR = java.nio.file.Files.isDirectory(java.nio.file.Path.of("/dev/shm")) ? "/dev/shm" : "/tmp";

    /** The table's file for node {@code node} of {@code location} (the same for every process of this host). */
    public static String pathOf(String location, int node) {
        return DIR + "/memchan-local-" + location.replaceAll("[^A-Za-z0-9._-]", "_") + "-node" + node;
    }

    /** Opens (creating when missing) the local table of node {@code node} of {@code location}. */
    public static NodeLocal open(String location, int node, int pageSize, int pageCount) {
        String path = pathOf(location, node);
        long size = fileSize(pageSize, pageCount);
        Arena arena = Arena.ofShared();
        int fd = -1;
        try {
            try {
                fd = Posix.open(path, Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL | Posix.O_CLOEXEC, 0660);
                Posix.fchmod(fd, 0660); // as the fabric file: the umask must not shut the node's group out
            } catch (ErrnoException e) {
                if (e.errno() != Posix.EEXIST) {
                    throw e;
                }
                fd = Posix.open(path, Posix.O_RDWR | Posix.O_CLOEXEC, 0);
            }
            if (Posix.fileSize(fd) < size) {
                Posix.ftruncate(fd, size); // grows with zeros; never shrinks a table another process maps
            }
            return new NodeLocal(path, pageSize, pageCount, arena, Posix.mmap(fd, 0, size, true, arena));
        } catch (ErrnoException e) {
            arena.close();
            throw new MemchanException(Kind.DEVICE_ERROR, "node-local table " + path + ": " + e.getMessage(), e);
        } finally {
            if (fd >= 0) {
                Posix.close(fd);
            }
        }
    }

    /**
     * Whether the table of node {@code node} of {@code location} on this host describes incarnation
     * {@code incarnation} and lists a process that exists (the kernel's word): a node whose member slot
     * names a dead process still lives while it does (the {@code Liveness} rule). False when there is no
     * such table or this process cannot read it. Read-only and without the table mutex: each pid word is
     * read whole, and a table that changes meanwhile is judged again at the next look.
     */
    public static boolean listsLiveProcess(String location, int node, long incarnation) {
        String path = pathOf(location, node);
        long length = slot(SLOTS);
        int fd;
        try {
            fd = Posix.open(path, Posix.O_RDONLY | Posix.O_CLOEXEC, 0);
        } catch (ErrnoException e) {
            return false; // no table (not this host's node, or gone), or not ours to read
        }
        try (Arena arena = Arena.ofConfined()) {
            if (Posix.fileSize(fd) < length) {
                return false;
            }
            MemorySegment t = Posix.mmap(fd, 0, length, false, arena);
            if ((long) LONG.getVolatile(t, MAGIC) != MAGIC_VALUE || (long) LONG.getVolatile(t, INCARNATION) != incarnation) {
                return false;
            }
            for (int s = 0; s < SLOTS; s++) {
                long p = (long) LONG.getVolatile(t, slot(s));
                if (p > 0 && p <= Integer.MAX_VALUE && Posix.processExists((int) p)) {
                    return true;
                }
            }
            return false;
        } catch (ErrnoException e) {
            return false;
        } finally {
            Posix.close(fd);
        }
    }

    public int pid() {
        return pid;
    }

    public MemorySegment segment() {
        return table;
    }

    /** Runs {@code body} holding the table mutex (threads of this process first take a Java lock). */
    public <T> T locked(Supplier<T> body) {
        threads.lock();
        try {
            NodeMutex.acquire(table, TABLE_MUTEX, pid, () -> { });
            try {
                return body.get();
            } finally {
                NodeMutex.release(table, TABLE_MUTEX, pid);
            }
        } finally {
            threads.unlock();
        }
    }

    public long incarnation() {
        return (long) LONG.getVolatile(table, INCARNATION);
    }

    /**
     * Under the table mutex: a table of another incarnation of the node is stale (the node left or
     * was declared dead since); it is cleared and taken for {@code incarnation}.
     */
    public void resetIfStale(long incarnation) {
        if (incarnation() == incarnation && (long) LONG.getVolatile(table, MAGIC) == MAGIC_VALUE) {
            return;
        }
        table.asSlice(HEADER_SIZE).fill((byte) 0); // not the mutexes: the caller may hold the cluster mutex
        LONG.setVolatile(table, MAGIC, MAGIC_VALUE);
        LONG.setVolatile(table, INCARNATION, incarnation);
    }

    /**
     * Under the table mutex: a free slot for this process; IN_USE when all are taken, or when this process
     * has one already (one Fabric per node and process: its threads share it).
     */
    public int register() {
        for (int s = 0; s < SLOTS; s++) {
            if (pidOf(s) == pid) {
                throw new MemchanException(Kind.IN_USE, "this process (pid " + pid + ") already uses this node ("
                        + path + "); share its Fabric between threads");
            }
        }
        for (int s = 0; s < SLOTS; s++) {
            if ((long) LONG.getVolatile(table, slot(s)) == 0) {
                LONG.setVolatile(table, slot(s), (long) pid);
                return s;
            }
        }
        throw new MemchanException(Kind.IN_USE, "node-local table " + path + ": all " + SLOTS + " process slots are taken");
    }

    public int pidOf(int slot) {
        return (int) (long) LONG.getVolatile(table, slot(slot));
    }

    /** Under the table mutex: frees slot {@code s} and everything it recorded. */
    public void unregister(int s) {
        for (int e = 0; e < capacity; e++) {
            BYTE.setVolatile(table, NodeLocalDescriptor.entryBits(pageSize, s, e), (byte) 0);
        }
        for (int m = 0; m < PAGE_MAPS; m++) {
            table.asSlice(pageMapByte(pageSize, pageCount, s, m, 0), bitmapBytes(pageCount)).fill((byte) 0);
        }
        LONG.setVolatile(table, slot(s), 0L);
    }

    /** A slot whose process is gone, or -1. */
    public int deadSlot() {
        for (int s = 0; s < SLOTS; s++) {
            int p = pidOf(s);
            if (p != 0 && !Posix.processExists(p)) {
                return s;
            }
        }
        return -1;
    }

    /** A live slot other than {@code except}, or -1. */
    public int otherLiveSlot(int except) {
        for (int s = 0; s < SLOTS; s++) {
            int p = pidOf(s);
            if (s != except && p != 0 && Posix.processExists(p)) {
                return s;
            }
        }
        return -1;
    }

    public int entryBits(int s, int entry) {
        return (byte) BYTE.getVolatile(table, NodeLocalDescriptor.entryBits(pageSize, s, entry)) & 0xFF;
    }

    public void setEntryBits(int s, int entry, int bits) {
        BYTE.setVolatile(table, NodeLocalDescriptor.entryBits(pageSize, s, entry), (byte) bits);
    }

    /** OR of entry {@code entry}'s bits over the slots other than {@code except}. */
    public int entryBitsOfOthers(int except, int entry) {
        int bits = 0;
        for (int s = 0; s < SLOTS; s++) {
            if (s != except && pidOf(s) != 0) {
                bits |= entryBits(s, entry);
            }
        }
        return bits;
    }

    public boolean pageMapped(int s, int map, int page) {
        int b = (byte) BYTE.getVolatile(table, pageMapByte(pageSize, pageCount, s, map, page)) & 0xFF;
        return (b & (1 << (page & 7))) != 0;
    }

    public void setPageMapped(int s, int map, int page, boolean on) {
        long at = pageMapByte(pageSize, pageCount, s, map, page);
        int b = (byte) BYTE.getVolatile(table, at) & 0xFF;
        BYTE.setVolatile(table, at, (byte) (on ? b | (1 << (page & 7)) : b & ~(1 << (page & 7))));
    }

    /** Page {@code page} is in map {@code map} of a slot other than {@code except}. */
    public boolean pageMappedByOthers(int except, int map, int page) {
        for (int s = 0; s < SLOTS; s++) {
            if (s != except && pidOf(s) != 0 && pageMapped(s, map, page)) {
                return true;
            }
        }
        return false;
    }

    public long clusterMutex() {
        return CLUSTER_MUTEX;
    }

    public long lockSetMutex(int entry) {
        return NodeLocalDescriptor.lockSetMutex(pageSize, entry);
    }

    @Override
    public void close() {
        arena.close();
    }
}
