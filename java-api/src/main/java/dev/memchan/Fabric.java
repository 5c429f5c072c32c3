package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.ClusterAdmin;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.MemberSlot;
import dev.memchan.internal.cluster.Liveness;
import dev.memchan.internal.cluster.ClusterService;
import dev.memchan.internal.cluster.Membership;
import dev.memchan.internal.cluster.RegionDirectory;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.cluster.Credentials;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.internal.soft.SoftFabricFile;
import dev.memchan.layout.Regs;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * This process's node on a memchan cluster: the entry point of the library.
 *
 * <pre>{@code
 * try (Fabric fabric = Fabric.open("shm:demo", FabricOptions.defaults());
 *      Region region = fabric.allocate(0x42, 4096, 0660);
 *      OutgoingMapping out = region.attachTransmit(Route.broadcast(), true);
 *      IncomingMapping in = region.attachReceive(false)) {
 *     out.putLongRelease(0, 42);          // a store: lands in every node's copy
 *     long v = in.getLongAcquire(0);      // a load from the local copy
 * }
 * }</pre>
 *
 * <p>Locations: {@code shm:NAME} joins the soft fabric /dev/shm/memchan-NAME (created when missing
 * if {@link FabricOptions#create()} is set); {@code dev:/dev/memchanN} opens the kernel driver's device;
 * {@code dev:/dev/memchan*} the first of the machine's devices whose node has no member process yet
 * (with {@link FabricOptions#nodeId()} N: the device whose node ID is N).
 * Several processes of one host may share a node (a node ID asked for on {@code shm:} while a live
 * process holds it; every process of an adapter on {@code dev:}): the cluster sees the node, each process
 * its own regions, lock holdings and events. Closing the fabric detaches and deallocates everything
 * this process held (the node leaves with its last process); if the process dies instead, the node's
 * other processes do the same for it, or, if it was the last, the surviving nodes when they declare the
 * node dead.
 */
public final class Fabric implements AutoCloseable {
    private final Backend backend;
    private final ClusterService cluster;
    private final Credentials credentials = Credentials.ofProcess();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Map<Integer, int[]> localAttachments = new HashMap<>();
    private final Thread shutdownHook;
    private boolean closed;
    /** The flock'd descriptor of the adapter joined through {@code dev:/dev/memchan*}, or -1. */
    private int adapterLock = -1;

    private Fabric(Backend backend, FabricOptions options) {
        this.backend = backend;
        ClusterService service;
        try {
            service = new ClusterService(backend, options.heartbeatPeriod(), options.failureTimeout());
            service.join();
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        this.cluster = service;
        this.shutdownHook = new Thread(this::close, "memchan-exit-" + backend.nodeId());
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Joins the fabric at {@code location} (see the class comment) as a new node. */
    public static Fabric open(String location, FabricOptions options) {
        int colon = location.indexOf(':');
        if (colon > 0 && location.endsWith("*") && !location.startsWith("shm:")) {
            return openFirstFree(location.substring(0, colon), location.substring(colon + 1), options);
        }
        return new Fabric(openBackend(location, options), options);
    }

    /**
     * {@code dev:/dev/memchan*}: the adapters /dev/memchanN (N a number, in numeric order) of one
     * machine, each with its own node ID on the same fabric. Joins the first whose node has no member
     * process yet or, with {@link FabricOptions#nodeId()} N, the one whose node ID is N, as one more
     * process of that node if it has some. A member process holds a shared flock on its adapter's
     * device (a process of this machine that opened dev:/dev/memchanN directly does not).
     * A refused attempt is closed again (grants and all) before the next adapter is tried.
     */
    private static Fabric openFirstFree(String scheme, String pattern, FabricOptions options) {
        NativeAccess.require();
        String location = scheme + ":" + pattern;
        BackendProvider provider = provider(scheme, location);
        Path glob = Path.of(pattern.substring(0, pattern.length() - 1));
        Path dir = glob.getParent() == null ? Path.of(".") : glob.getParent();
        String prefix = glob.getFileName() == null ? "" : glob.getFileName().toString();
        if (pattern.indexOf('*') != pattern.length() - 1 || prefix.isEmpty()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "fabric location '" + location
                    + "': only a trailing * standing for the adapter number is supported (dev:/dev/memchan*)");
        }
        TreeMap<Long, Path> candidates = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, prefix + "*")) {
            for (Path p : ds) {
                String number = p.getFileName().toString().substring(prefix.length());
                if (!number.isEmpty() && number.length() < 10 && number.chars().allMatch(Character::isDigit)) {
                    candidates.put(Long.parseLong(number), p);
                }
            }
        } catch (IOException e) {
            throw new MemchanException(Kind.NOT_FOUND, "fabric location '" + location + "': " + e, e);
        }
        if (candidates.isEmpty()) {
            throw new MemchanException(Kind.NOT_FOUND, "fabric location '" + location + "': no adapter matches");
        }
        int wanted = options.nodeId();
        MemchanException inUse = null;
        List<String> skipped = new ArrayList<>();
        for (Path p : candidates.values()) {
            String path = p.toString();
            Backend backend;
            try {
                backend = provider.open(path, -1); // never changes an adapter's node ID
            } catch (MemchanException e) {
                skipped.add(path + " (" + e.getMessage() + ")");
                continue;
            }
            int lock = -1;
            try {
                if (wanted >= backend.maxNodes() || wanted < -1) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + wanted + " out of range 0.."
                            + (backend.maxNodes() - 1) + " for " + location);
                }
                if (wanted >= 0 && backend.nodeId() != wanted) {
                    continue;
                }
                // Member processes hold a shared flock on their adapter's device, let go by their death:
                // without a node ID the glob takes an adapter nobody holds (an exclusive lock, at once
                // made shared); with node ID N it joins N's processes (several processes per node).
                lock = Posix.open(path, Posix.O_RDWR, 0);
                boolean free = Posix.tryLockExclusive(lock);
                if (!free && wanted >= 0) {
                    free = lockShared(lock);
                }
                if (free && !Posix.tryLockShared(lock)) {
                    throw new MemchanException(Kind.DEVICE_ERROR, path + ": cannot turn its flock shared");
                }
                // the member's pid from the membership, through a receive grant of the system pages
                // (shared with the member, as mcctl reads them): nothing is transmitted in its name
                MemberSlot member;
                try (Backend.Grant g = backend.grantReceive(0, Regs.SYS_PAGES, RxPct.encode(true, false))) {
                    member = ClusterView.of(g.segment(), backend.pageSize(), backend.maxNodes()).member(backend.nodeId());
                }
                if (free && wanted < 0 && member.alive() && Liveness.mayBeAlive(member.hostId(), member.pid())) {
                    free = false; // a process that opened dev:/dev/memchanN directly holds no flock
                }
                if (!free) {
                    long holder = member.pid();
                    inUse = Membership.nodeInUse(backend.nodeId(), backend.location(), holder);
                    skipped.add(path + " (node " + backend.nodeId() + ": a member process, pid " + holder + ")");
                    continue;
                }
                Backend b = backend;
                backend = null;
                Fabric f = new Fabric(b, options); // closes the backend when the join is refused
                f.adapterLock = lock;
                lock = -1;
                return f;
            } catch (ErrnoException e) {
                skipped.add(path + " (" + e.getMessage() + ")");
            } catch (MemchanException e) {
                if (e.kind() != Kind.IN_USE) {
                    throw e;
                }
                inUse = e;
                skipped.add(path + " (" + e.getMessage() + ")");
            } finally {
                if (lock >= 0) {
                    Posix.close(lock);
                }
                if (backend != null) {
                    backend.close();
                }
            }
        }
        if (wanted >= 0 && inUse != null) {
            throw inUse; // node N's adapter: its member process is named
        }
        throw new MemchanException(inUse != null ? Kind.IN_USE : Kind.NOT_FOUND, "fabric location '" + location + "': "
                + (wanted >= 0 ? "no free adapter with node ID " + wanted : "every adapter's node has a member process or no node ID")
                + (skipped.isEmpty() ? "" : ": " + String.join("; ", skipped)));
    }

    /** A shared flock, retried briefly: another process may hold it exclusively between taking it and sharing it. */
    private static boolean lockShared(int fd) throws ErrnoException {
        for (int attempt = 0; attempt < 100; attempt++) {
            if (Posix.tryLockShared(fd)) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        return false;
    }

    /** Opens {@code location}'s backend: one ServiceLoader lookup of its scheme ({@code shm}, {@code dev}). */
    static Backend openBackend(String location, FabricOptions options) {
        NativeAccess.require();
        int colon = location.indexOf(':');
        return provider(colon < 0 ? "" : location.substring(0, colon), location)
                .open(colon < 0 ? location : location.substring(colon + 1), options);
    }

    /** The BackendProvider of {@code scheme}; INVALID_ARGUMENT naming {@code location} when there is none. */
    private static BackendProvider provider(String scheme, String location) {
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class, Fabric.class.getClassLoader())) {
            if (p.scheme().equals(scheme)) {
                return p;
            }
        }
        throw new MemchanException(Kind.INVALID_ARGUMENT, "unknown fabric location '" + location
                + "': use shm:NAME (soft fabric) or dev:/dev/memchanN (kernel driver)");
    }

    /** Creates a soft fabric file without joining it (mcctl node create). */
    public static void createSoftFabric(String name, FabricOptions options) {
        NativeAccess.require();
        SoftFabricFile.create(SoftFabricFile.pathOf(name), options.fabricSize(), options.pageSize(), options.maxNodes(), options.group());
    }

    /** Removes a soft fabric file. */
    public static void removeSoftFabric(String name) {
        NativeAccess.require();
        SoftFabricFile.remove(SoftFabricFile.pathOf(name));
    }

    public int nodeId() {
        return backend.nodeId();
    }

    public int maxNodes() {
        return backend.maxNodes();
    }

    public int pageSize() {
        return backend.pageSize();
    }

    /** Network pages of the window, including the {@value Regs#SYS_PAGES} system pages. */
    public int pageCount() {
        return backend.pageCount();
    }

    public String location() {
        return backend.location();
    }

    /** The adapter underneath (registers, PCT): for tools. */
    public Backend adapter() {
        return backend;
    }

    /**
     * The operator's view of the cluster and its static carve-out transactions (mcctl): see
     * {@link ClusterAdmin}. Valid while this fabric is open.
     */
    public ClusterAdmin admin() {
        ensureOpen();
        return cluster;
    }

    RegionDirectory directory() {
        return cluster.directory();
    }

    NodeLocal nodeLocal() {
        return cluster.nodeLocal();
    }

    // ---- regions ----------------------------------------------------------------------------

    /**
     * imc_asalloc: allocates a region of {@code sizeBytes} (rounded up to whole pages) under {@code key}
     * with UNIX permission bits {@code mode} (read = receive, write = transmit), or joins the region
     * already allocated under {@code key}.
     */
    public Region allocate(long key, long sizeBytes, int mode) {
        ensureOpen();
        if (sizeBytes < 1) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region size must be at least 1 byte, not " + sizeBytes);
        }
        long pages = (sizeBytes + pageSize() - 1) / pageSize();
        if (pages > Integer.MAX_VALUE) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region of " + sizeBytes + " bytes is larger than any window");
        }
        return track(new Region(this, cluster.directory().allocate(key, (int) pages, mode, 0, credentials)));
    }

    /**
     * imc_lkalloc: a set of {@code locks} cluster locks under {@code key} (created or joined) of this backend's
     * default kind ({@link #defaultLockKind()}).
     */
    public ClusterLockSet lockSet(long key, int locks) {
        return lockSet(key, locks, defaultLockKind());
    }

    /**
     * The lock kind {@link #lockSet(long, int)} uses here: the bid lock on every backend (docs/performance.md,
     * "Locks (uncontended)"). Soft fabric: the CAS lock is about 3x faster
     * uncontended (2.2 to 2.9x the spinlock against the bid lock's 6 to 9x), but its set dies with its home
     * node, and the bid lock has no single node to lose; {@code dev:}: on ivshmem each remote atomic is a
     * system call, and a board does not serve them to Java yet (a CAS set is refused as UNSUPPORTED).
     */
    public LockKind defaultLockKind() {
        return LockKind.BID;
    }

    /** imc_lkalloc with the lock algorithm chosen: a {@link LockKind#CAS} set is homed at the node that allocates it. */
    public ClusterLockSet lockSet(long key, int locks, LockKind kind) {
        ensureOpen();
        if (kind == null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock kind must be BID or CAS, not null");
        }
        return track(ClusterLockSet.open(this, key, locks, kind));
    }

    Region allocateLockRegion(long key, int locks, long bytes, LockKind kind) {
        int maxLocks = SystemPagesDescriptor.regionFlagsLockCount((int) Regs.SYS_REGION_FLAGS_LOCK_COUNT_MASK);
        if (locks < 1 || locks > maxLocks) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a lock set has 1.." + maxLocks + " locks, not " + locks);
        }
        int pages = (int) ((bytes + pageSize() - 1) / pageSize());
        return new Region(this, cluster.directory().allocate(key, pages, 0660, SystemPagesDescriptor.regionFlags(true, false, kind == LockKind.CAS, kind == LockKind.CAS ? nodeId() : 0, locks), credentials));
    }

    /** Sets multicast group {@code group}'s members (a node mask); refused while a region uses the group. */
    public void setMulticastGroup(int group, int nodeMask) {
        ensureOpen();
        cluster.directory().setMulticastGroup(group, nodeMask);
    }

    public int multicastGroup(int group) {
        return cluster.directory().multicastGroup(group);
    }

    Credentials credentials() {
        return credentials;
    }

    /** Counts this process's transmit (0) and receive (1) attachments per directory entry. */
    synchronized boolean firstAttachment(int entry, int kind) {
        return localAttachments.computeIfAbsent(entry, k -> new int[2])[kind]++ == 0;
    }

    synchronized boolean lastAttachment(int entry, int kind) {
        int[] c = localAttachments.get(entry);
        return c != null && --c[kind] == 0;
    }

    synchronized <T extends AutoCloseable> T track(T resource) {
        owned.add(resource);
        return resource;
    }

    synchronized void untrack(AutoCloseable resource) {
        owned.remove(resource);
    }

    // ---- membership, errors, ordering -------------------------------------------------------

    /** Node mask of the live members. */
    public int members() {
        return cluster.members();
    }

    /**
     * imc_wait_cluster_event: the next join/leave, or null after {@code timeout}. An
     * {@link ClusterEvent.Type#EVICTED} event says this node was declared dead while this process lived:
     * close this Fabric and open the node again to rejoin as a new incarnation.
     */
    public ClusterEvent awaitClusterEvent(Duration timeout) throws InterruptedException {
        return cluster.awaitEvent(timeout);
    }

    public void onClusterEvent(Consumer<ClusterEvent> listener) {
        cluster.addListener(listener);
    }

    /**
     * Remote reads and atomics this node refused as a home (its REMOTE_REFUSED register): pages it does not
     * grant the access on, misaligned words.
     */
    public long remoteRefused() {
        return Integer.toUnsignedLong(backend.readRegister(Regs.REG_REMOTE_REFUSED));
    }

    /** Remote reads this node served as the home of network page {@code page} (its page counter; wraps at 2^32). */
    public long remoteReadsServed(int page) {
        return backend.pageCounter(page, Regs.SF_PAGE_COUNTER_READS);
    }

    /** Remote atomics this node served as the home of network page {@code page} (wraps at 2^32). */
    public long remoteAtomicsServed(int page) {
        return backend.pageCounter(page, Regs.SF_PAGE_COUNTER_ATOMICS);
    }

    /**
     * Sets the page counter threshold (PAGE_CNT_THRESHOLD): a page granted with
     * {@link RemoteAccess#COUNT_NOTIFY} whose read or atomic counter reaches it notifies this node
     * ({@link #awaitHotPage}). 0 turns it off.
     */
    public void setPageCountThreshold(int threshold) {
        backend.setPageCountThreshold(threshold);
    }

    /**
     * Waits for a page of this node to become hot (its counter reached the threshold) and returns it, or -1
     * after {@code timeout}. Consumes the notification: a second hot page before the call shows as the last one.
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

    /** How often {@link #awaitHotPage} looks at PAGE_HOT without a notification: 10 system calls a second. */
    private static final long HOT_PAGE_RECHECK_NANOS = 100_000_000L;

    /**
     * The cluster's global time with its error bound (Memory Channel 2's global clock). On a board it is the
     * adapter's GLOBAL_TIME, kept by the hub's (or, back to back, node 0's) synchronization frames, in link
     * cycles: four register reads, each a system call and on the co-simulated board a simulated BAR read, so
     * read it to timestamp events, not in a polling loop. On the soft fabric it is the host's monotonic clock
     * in nanoseconds, bound 0: every node is a process of this host and reads the same clock. On the driver's
     * ivshmem backend (guests share no clock) it is the clock master's monotonic clock in nanoseconds, as this
     * node's driver estimates it from a request-and-answer exchange through the shared file every heartbeat
     * period; the bound is that exchange's round trip plus drift (milliseconds under emulation).
     *
     * @throws MemchanException {@code UNSUPPORTED} where the backend has no global clock, {@code DEVICE_ERROR}
     *                          while the node is not synchronized (an adapter: no sync frame within 4
     *                          intervals, no link or no master; ivshmem: no answer from the master within 4
     *                          heartbeat periods)
     */
    public ClusterTime clusterTime() {
        return backend.clusterTime();
    }

    /** imc_rderrcnt: transfers that may have been lost so far (always 0 on the soft fabric). */
    public long errorCount() {
        return backend.errorCount();
    }

    /**
     * imc_ckerrcnt: true when an error happened since {@code before} was read with {@link #errorCount()},
     * so the transfers in between may have been lost and must be repeated.
     */
    public boolean errorsSince(long before) {
        return backend.errorCount() != before;
    }

    /**
     * Acknowledge sweep: every store this process made before the call has reached its destinations.
     * Stronger than {@link OutgoingMapping#fence()}, which only orders stores.
     */
    public void ackBarrier() {
        backend.ackBarrier(Duration.ofSeconds(1));
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "fabric " + location() + " is closed");
        }
    }

    /** Leaves the cluster: closes every region, lock set and mapping of this node, then the adapter. */
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
            if (adapterLock >= 0) {
                Posix.close(adapterLock);
            }
        }
    }
}
