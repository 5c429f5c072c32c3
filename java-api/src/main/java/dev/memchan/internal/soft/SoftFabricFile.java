package dev.memchan.internal.soft;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricLayout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.regex.Pattern;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Creating, validating and opening soft fabric files (docs/soft-fabric.md). A file that fails
 * validation is never written to: the header is checked through a read-only mapping first.
 */
public final class SoftFabricFile {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final long READY_WAIT_NANOS = 2_000_000_000L;
    private static final java.lang.invoke.VarHandle INCARNATION = JAVA_LONG.varHandle();

    private SoftFabricFile() {
    }

    /** {@code shm:NAME} → /dev/shm/memchan-NAME (validated). */
    public static Path pathOf(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "bad fabric name '" + name
                    + "': use 1-64 characters from [A-Za-z0-9._-], starting with a letter or digit");
        }
        return Path.of("/dev/shm", "memchan-" + name);
    }

    /**
     * Creates a new fabric file. Refuses to touch an existing file.
     *
     * @param gid group to give the file (mode 0660), or -1 for the creator's group
     */
    public static SoftFabricLayout create(Path path, long fileSize, int pageSize, int maxNodes, int gid) {
        String problem = SoftFabricLayout.problem(fileSize, pageSize, maxNodes);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "cannot create fabric " + path + ": " + problem);
        }
        SoftFabricLayout layout = SoftFabricLayout.forCreation(fileSize, pageSize, maxNodes);
        int fd;
        try {
            fd = Posix.open(path.toString(), Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL, 0660);
        } catch (ErrnoException e) {
            if (e.errno() == Posix.EEXIST) {
                throw new MemchanException(Kind.IN_USE, "fabric file " + path + " already exists; join it, or remove it first", e);
            }
            throw new MemchanException(e.errno() == Posix.EACCES ? Kind.PERMISSION : Kind.DEVICE_ERROR,
                    "cannot create fabric file " + path + ": " + e.getMessage(), e);
        }
        boolean ok = false;
        try (Arena arena = Arena.ofConfined()) {
            Posix.fchmod(fd, 0660); // the umask must not narrow the group's access
            if (gid >= 0) {
                Posix.fchown(fd, -1, gid);
            }
            Posix.ftruncate(fd, fileSize);
            MemorySegment control = Posix.mmap(fd, 0, layout.dataOffset(), true, arena);
            writeHeader(control, layout);
            for (int n = 0; n < maxNodes; n++) {
                writeIdentity(control, layout, n);
            }
            control.set(JAVA_INT, SF_HDR_STATE, SF_STATE_READY);
            java.lang.invoke.VarHandle.fullFence(); // STATE last: a joiner seeing READY sees the rest
            ok = true;
            return layout;
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot create fabric file " + path + ": " + e.getMessage(), e);
        } finally {
            Posix.close(fd);
            if (!ok) {
                try {
                    Posix.unlink(path.toString());
                } catch (ErrnoException ignored) {
                    // it was ours and half-written; nothing else to do
                }
            }
        }
    }

    private static void writeHeader(MemorySegment h, SoftFabricLayout l) {
        h.set(JAVA_LONG, SF_HDR_MAGIC, SF_MAGIC);
        h.set(JAVA_INT, SF_HDR_VERSION, SF_VERSION);
        h.set(JAVA_INT, SF_HDR_HEADER_SIZE, SF_HEADER_SIZE);
        h.set(JAVA_INT, SF_HDR_PAGE_SIZE, l.pageSize());
        h.set(JAVA_INT, SF_HDR_PAGE_COUNT, l.pageCount());
        h.set(JAVA_INT, SF_HDR_MAX_NODES, l.maxNodes());
        h.set(JAVA_INT, SF_HDR_SYSTEM_PAGES, SYS_PAGES);
        h.set(JAVA_LONG, SF_HDR_FILE_SIZE, l.fileSize());
        h.set(JAVA_LONG, SF_HDR_NODE_AREA_OFFSET, l.nodeAreaOffset());
        h.set(JAVA_LONG, SF_HDR_NODE_BLOCK_SIZE, l.nodeBlockSize());
        h.set(JAVA_LONG, SF_HDR_DATA_OFFSET, l.dataOffset());
        long id;
        do {
            id = new SecureRandom().nextLong();
        } while (id == 0);
        h.set(JAVA_LONG, SF_HDR_FABRIC_ID, id);
        h.set(JAVA_INT, SF_HDR_FLAGS, 0);
        h.set(JAVA_LONG, SF_HDR_CREATED_NS, System.currentTimeMillis() * 1_000_000L);
    }

    /** The read-only identity registers of an emulated adapter (same values as a board's BAR0). */
    private static void writeIdentity(MemorySegment control, SoftFabricLayout l, int node) {
        long r = l.nodeBlock(node);
        control.set(JAVA_INT, r + REG_ID, REG_ID_RESET);
        control.set(JAVA_INT, r + REG_VERSION, REG_VERSION_RESET);
        control.set(JAVA_INT, r + REG_PAGE_COUNT, l.pageCount());
        control.set(JAVA_INT, r + REG_PAGE_SIZE, l.pageSize());
        control.set(JAVA_INT, r + REG_MAX_NODES, l.maxNodes());
        control.set(JAVA_INT, r + REG_CAPS, (int) SF_INIT_CAPS);
        control.set(JAVA_INT, r + REG_CTRL, SF_INIT_CTRL);
        control.set(JAVA_INT, r + REG_LINK_STATUS, SF_INIT_LINK_STATUS);
    }

    /** An open, validated fabric file: descriptor plus its layout. */
    public record Opened(int fd, SoftFabricLayout layout, long fabricId) {
    }

    /**
     * Opens and validates an existing fabric file read-write. Nothing is written here; on any
     * problem the descriptor is closed and a BAD_FORMAT / NOT_FOUND / PERMISSION error names it.
     */
    public static Opened open(Path path) {
        int fd;
        try {
            fd = Posix.open(path.toString(), Posix.O_RDWR, 0);
        } catch (ErrnoException e) {
            Kind kind = e.errno() == Posix.ENOENT ? Kind.NOT_FOUND : e.errno() == Posix.EACCES ? Kind.PERMISSION : Kind.DEVICE_ERROR;
            String hint = kind == Kind.NOT_FOUND ? " (create it with: mcctl node create)"
                    : kind == Kind.PERMISSION ? " (the file is mode 0660: join its group)" : "";
            throw new MemchanException(kind, "cannot open fabric " + path + ": " + e.getMessage() + hint, e);
        }
        try {
            return new Opened(fd, validate(path, fd), readFabricId(fd));
        } catch (RuntimeException e) {
            Posix.close(fd);
            throw e;
        }
    }

    private static long readFabricId(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            return Posix.mmap(fd, 0, SF_HEADER_SIZE, false, arena).get(JAVA_LONG, SF_HDR_FABRIC_ID);
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot map fabric header: " + e.getMessage(), e);
        }
    }

    static SoftFabricLayout validate(Path path, int fd) {
        String where = "fabric file " + path;
        long size;
        try {
            size = Posix.fileSize(fd);
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, where + ": " + e.getMessage(), e);
        }
        if (size < SF_HEADER_SIZE) {
            throw bad(where, "is " + size + " bytes, smaller than a header (" + SF_HEADER_SIZE + ")");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment h = Posix.mmap(fd, 0, SF_HEADER_SIZE, false, arena);
            long magic = h.get(JAVA_LONG, SF_HDR_MAGIC);
            if (magic != SF_MAGIC) {
                throw bad(where, String.format("has magic 0x%016x, not 0x%016x (\"MCFABRIC\"): not a memchan fabric", magic, SF_MAGIC));
            }
            int version = h.get(JAVA_INT, SF_HDR_VERSION);
            if (version != SF_VERSION) {
                throw bad(where, "has layout version " + version + "; this library reads version " + SF_VERSION);
            }
            long deadline = System.nanoTime() + READY_WAIT_NANOS;
            while (h.get(JAVA_INT, SF_HDR_STATE) != SF_STATE_READY) {
                if (System.nanoTime() > deadline) {
                    throw bad(where, "is still initializing after 2 s (state " + h.get(JAVA_INT, SF_HDR_STATE)
                            + "): its creator died while writing it; remove it and create it again");
                }
                Thread.onSpinWait();
                java.lang.invoke.VarHandle.acquireFence();
            }
            int headerSize = h.get(JAVA_INT, SF_HDR_HEADER_SIZE);
            int pageSize = h.get(JAVA_INT, SF_HDR_PAGE_SIZE);
            int pageCount = h.get(JAVA_INT, SF_HDR_PAGE_COUNT);
            int maxNodes = h.get(JAVA_INT, SF_HDR_MAX_NODES);
            int systemPages = h.get(JAVA_INT, SF_HDR_SYSTEM_PAGES);
            long fileSize = h.get(JAVA_LONG, SF_HDR_FILE_SIZE);
            if (headerSize != SF_HEADER_SIZE) {
                throw bad(where, "states header size " + headerSize + ", expected " + SF_HEADER_SIZE);
            }
            if (fileSize != size) {
                throw bad(where, "states size " + fileSize + " but the file is " + size + " bytes");
            }
            String problem = SoftFabricLayout.problem(fileSize, pageSize, maxNodes);
            if (problem != null) {
                throw bad(where, "states impossible parameters: " + problem);
            }
            if (systemPages != SYS_PAGES) {
                throw bad(where, "reserves " + systemPages + " system pages, expected " + SYS_PAGES);
            }
            if (pageCount <= SYS_PAGES || pageCount > MAX_PAGES) {
                throw bad(where, "states page count " + pageCount + ", outside " + (SYS_PAGES + 1) + ".." + MAX_PAGES);
            }
            SoftFabricLayout layout = SoftFabricLayout.of(fileSize, pageSize, maxNodes, pageCount);
            if (h.get(JAVA_LONG, SF_HDR_NODE_AREA_OFFSET) != layout.nodeAreaOffset()
                    || h.get(JAVA_LONG, SF_HDR_NODE_BLOCK_SIZE) != layout.nodeBlockSize()
                    || h.get(JAVA_LONG, SF_HDR_DATA_OFFSET) != layout.dataOffset()) {
                throw bad(where, "has section offsets that disagree with its page size, page count and node count");
            }
            if (!layout.fits()) {
                throw bad(where, "states " + pageCount + " pages, more than fit in " + fileSize + " bytes");
            }
            return layout;
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, where + ": " + e.getMessage(), e);
        }
    }

    private static MemchanException bad(String where, String what) {
        return new MemchanException(Kind.BAD_FORMAT, where + " " + what + "; it was left untouched");
    }

    /**
     * Each node block's INCARNATION in the fabric file at {@code path}, for a file made again in its place to go
     * on from ({@link #continueIncarnations}); an empty array when there is no valid file there.
     */
    public static long[] incarnations(Path path) {
        Opened f;
        try {
            f = open(path);
        } catch (MemchanException notThere) {
            return new long[0];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment control = Posix.mmap(f.fd(), 0, f.layout().dataOffset(), false, arena);
            long[] of = new long[f.layout().maxNodes()];
            for (int n = 0; n < of.length; n++) {
                of[n] = control.get(JAVA_LONG, f.layout().nodeBlock(n) + SF_NODE_INCARNATION);
            }
            return of;
        } catch (ErrnoException e) {
            return new long[0];
        } finally {
            Posix.close(f.fd());
        }
    }

    /**
     * Sets the node blocks' INCARNATION of the new, unclaimed fabric file at {@code path} to {@code incarnations}
     * (those of the file it replaces), so that a node's next claim is a new incarnation, never one seen before.
     */
    public static void continueIncarnations(Path path, long[] incarnations) {
        Opened f = open(path);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment control = Posix.mmap(f.fd(), 0, f.layout().dataOffset(), true, arena);
            for (int n = 0; n < Math.min(incarnations.length, f.layout().maxNodes()); n++) {
                control.set(JAVA_LONG, f.layout().nodeBlock(n) + SF_NODE_INCARNATION, incarnations[n]);
            }
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot map fabric " + path + ": " + e.getMessage(), e);
        } finally {
            Posix.close(f.fd());
        }
    }

    /**
     * Raises node {@code node}'s INCARNATION in the fabric file at {@code path} to {@code floor} when it is below, so that
     * the node's next claim there is past an incarnation it had elsewhere (a network fabric's node that moved between
     * hosts); a claim that holds the node now keeps its own incarnation (its OWNER word's).
     */
    public static void raiseIncarnation(Path path, int node, long floor) {
        Opened f = open(path);
        try (Arena arena = Arena.ofConfined()) {
            if (node < 0 || node >= f.layout().maxNodes()) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "node " + node + " is not a node of fabric " + path);
            }
            MemorySegment control = Posix.mmap(f.fd(), 0, f.layout().dataOffset(), true, arena);
            long at = f.layout().nodeBlock(node) + SF_NODE_INCARNATION;
            long now;
            do {
                now = (long) INCARNATION.getVolatile(control, at);
            } while (now < floor && !INCARNATION.compareAndSet(control, at, now, floor));
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "cannot map fabric " + path + ": " + e.getMessage(), e);
        } finally {
            Posix.close(f.fd());
        }
    }

    /** Removes a fabric file (no process should be joined). */
    public static void remove(Path path) {
        try {
            Posix.unlink(path.toString());
        } catch (ErrnoException e) {
            throw new MemchanException(e.errno() == Posix.ENOENT ? Kind.NOT_FOUND : Kind.DEVICE_ERROR,
                    "cannot remove fabric " + path + ": " + e.getMessage(), e);
        }
        String name = path.getFileName().toString().substring("memchan-".length());
        for (int n = 0; n < MAX_NODES; n++) { // the nodes' local tables go with the fabric
            try {
                Posix.unlink(NodeLocal.pathOf("shm:" + name, n));
            } catch (ErrnoException ignored) {
                // that node never had a process on this host
            }
        }
    }
}
