package dev.memchan.internal.node;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.internal.cluster.ClusterService;
import dev.memchan.internal.cluster.Credentials;
import dev.memchan.internal.cluster.RegionDirectory;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.layout.Regs;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One process's node on a fabric, behind the public {@code Fabric}: the backend its location's provider
 * opened, the cluster service joined on it, the process's credentials, the resources it opened (closed
 * with it, newest first), its attachment counts per directory entry, and the exit hook that leaves the
 * cluster when the JVM ends without a close.
 */
public final class NodeContext implements AutoCloseable {
    /** How often {@link #awaitHotPage} looks at PAGE_HOT without a notification: 10 system calls a second. */
    private static final long HOT_PAGE_RECHECK_NANOS = 100_000_000L;

    private final Backend backend;
    private final ClusterService cluster;
    private final Credentials credentials = Credentials.ofProcess();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Map<Integer, int[]> localAttachments = new HashMap<>();
    private final Thread shutdownHook;
    private boolean closed;

    /** Joins the cluster on {@code backend}; the caller closes the backend when this throws. */
    private NodeContext(Backend backend, FabricOptions options) {
        this.backend = backend;
        this.cluster = new ClusterService(backend, options.heartbeatPeriod(), options.failureTimeout());
        cluster.join();
        this.shutdownHook = new Thread(this::close, "memchan-exit-" + backend.nodeId());
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Joins the fabric at {@code location} as a new node (or one more process of a node): its provider opens it. */
    public static NodeContext open(String location, FabricOptions options) {
        NativeAccess.require();
        Location parsed = Location.parse(location);
        return BackendProvider.of(parsed).join(parsed, options, backend -> new NodeContext(backend, options));
    }

    public Backend backend() {
        return backend;
    }

    /** The cluster service: membership, directory, the admin surface. */
    public ClusterService cluster() {
        return cluster;
    }

    public RegionDirectory directory() {
        return cluster.directory();
    }

    public NodeLocal nodeLocal() {
        return cluster.nodeLocal();
    }

    public Credentials credentials() {
        return credentials;
    }

    // ---- the directory entries this process allocates -------------------------------------------

    /** A region of {@code sizeBytes} rounded up to whole pages under {@code key} (created or joined). */
    public DirectoryEntry allocateRegion(long key, long sizeBytes, int mode) {
        ensureOpen();
        if (sizeBytes < 1) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region size must be at least 1 byte, not " + sizeBytes);
        }
        long pages = (sizeBytes + backend.pageSize() - 1) / backend.pageSize();
        if (pages > Integer.MAX_VALUE) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region of " + sizeBytes + " bytes is larger than any window");
        }
        return cluster.directory().allocate(key, (int) pages, mode, 0, credentials);
    }

    /**
     * The region of a lock set of {@code locks} locks in {@code bytes} under {@code key}: flagged a lock set,
     * with its lock count, and for a CAS set homed at this node.
     */
    public DirectoryEntry allocateLockSet(long key, int locks, long bytes, boolean cas) {
        int maxLocks = SystemPagesDescriptor.regionFlagsLockCount((int) Regs.SYS_REGION_FLAGS_LOCK_COUNT_MASK);
        if (locks < 1 || locks > maxLocks) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a lock set has 1.." + maxLocks + " locks, not " + locks);
        }
        int pages = (int) ((bytes + backend.pageSize() - 1) / backend.pageSize());
        int flags = SystemPagesDescriptor.regionFlags(true, false, cas, cas ? backend.nodeId() : 0, locks);
        return cluster.directory().allocate(key, pages, 0660, flags, credentials);
    }

    /** Counts this process's transmit (0) and receive (1) attachments per directory entry: true for the first. */
    public synchronized boolean firstAttachment(int entry, int kind) {
        return localAttachments.computeIfAbsent(entry, k -> new int[2])[kind]++ == 0;
    }

    /** True when this was the process's last attachment of {@code kind} to {@code entry}. */
    public synchronized boolean lastAttachment(int entry, int kind) {
        int[] c = localAttachments.get(entry);
        return c != null && --c[kind] == 0;
    }

    /** {@code resource} is closed with this node (unless {@link #untrack}ed first). */
    public synchronized <T extends AutoCloseable> T track(T resource) {
        owned.add(resource);
        return resource;
    }

    public synchronized void untrack(AutoCloseable resource) {
        owned.remove(resource);
    }

    // ---- the adapter's counters and notifications -----------------------------------------------

    /** The adapter's REMOTE_REFUSED register, unsigned. */
    public long remoteRefused() {
        return Integer.toUnsignedLong(backend.readRegister(Regs.REG_REMOTE_REFUSED));
    }

    /**
     * Waits for a page of this node to become hot and returns it, or -1 after {@code timeout}; consumes
     * the notification.
     */
    public int awaitHotPage(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int seen = backend.notifyCount();
            int page = backend.takeHotPage();
            long left = deadline - System.nanoTime();
            if (page >= 0 || left <= 0) {
                return page;
            }
            // the soft fabric and ivshmem count a hot page as a notification; a board's adapter only sets
            // IRQ_STATUS.PAGE_HOT, which the driver does not take as one (docs/driver.md): look again
            backend.awaitNotify(seen, Math.min(left, HOT_PAGE_RECHECK_NANOS));
        }
    }

    // ---- closing --------------------------------------------------------------------------------

    public synchronized boolean isClosed() {
        return closed;
    }

    /** CLOSED, naming the location, once this node is closed. */
    public void ensureOpen() {
        if (isClosed()) {
            throw new MemchanException(Kind.CLOSED, "fabric " + backend.location() + " is closed");
        }
    }

    /** Leaves the cluster: closes every resource this process opened on the node, then the cluster service and the adapter. */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(owned);
            owned.clear();
        }
        try {
            if (Thread.currentThread() != shutdownHook) {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down already
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception ignored) {
                // keep closing the rest; the cluster cleanup below releases what is left
            }
        }
        try {
            cluster.close();
        } finally {
            backend.close();
        }
    }
}
