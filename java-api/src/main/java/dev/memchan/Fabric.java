package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.cluster.ClusterService;
import dev.memchan.internal.cluster.Credentials;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.internal.soft.SoftFabricBackend;
import dev.memchan.internal.soft.SoftFabricFile;
import dev.memchan.layout.Regs;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
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
 * if {@link FabricOptions#create()} is set); {@code dev:/dev/memchanN} opens the kernel driver's device.
 * Closing the fabric detaches and deallocates everything this node held; if the process dies
 * instead, the surviving nodes do the same when they declare it dead.
 */
public final class Fabric implements AutoCloseable {
    private final Backend backend;
    private final ClusterService cluster;
    private final Credentials credentials = Credentials.ofProcess();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Map<Integer, int[]> localAttachments = new HashMap<>();
    private final Thread shutdownHook;
    private boolean closed;

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
        return new Fabric(openBackend(location, options), options);
    }

    static Backend openBackend(String location, FabricOptions options) {
        NativeAccess.require();
        int colon = location.indexOf(':');
        String scheme = colon < 0 ? "" : location.substring(0, colon);
        String rest = colon < 0 ? location : location.substring(colon + 1);
        if (scheme.equals("shm")) {
            Path path = SoftFabricFile.pathOf(rest);
            if (options.create() && !path.toFile().exists()) {
                try {
                    SoftFabricFile.create(path, options.fabricSize(), options.pageSize(), options.maxNodes(), options.group());
                } catch (MemchanException e) {
                    if (e.kind() != Kind.IN_USE) { // another process created it first: join theirs
                        throw e;
                    }
                }
            }
            return SoftFabricBackend.join(location, path, options.nodeId(), options.failureTimeout());
        }
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class, Fabric.class.getClassLoader())) {
            if (p.scheme().equals(scheme)) {
                return p.open(rest, options.nodeId());
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

    /** The cluster service (directory, membership): for tools. */
    public ClusterService cluster() {
        return cluster;
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
        return track(new Region(this, cluster.allocate(key, (int) pages, mode, 0, credentials)));
    }

    /** imc_lkalloc: a set of {@code locks} cluster locks under {@code key} (created or joined). */
    public ClusterLockSet lockSet(long key, int locks) {
        ensureOpen();
        return track(ClusterLockSet.open(this, key, locks));
    }

    Region allocateLockRegion(long key, int locks, long bytes) {
        if (locks < 1 || locks > 0xFFFF) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a lock set has 1..65535 locks, not " + locks);
        }
        int pages = (int) ((bytes + pageSize() - 1) / pageSize());
        return new Region(this, cluster.allocate(key, pages, 0660, 1 | (locks << 16), credentials));
    }

    /** Sets multicast group {@code group}'s members (a node mask); refused while a region uses the group. */
    public void setMulticastGroup(int group, int nodeMask) {
        ensureOpen();
        cluster.setMulticastGroup(group, nodeMask);
    }

    public int multicastGroup(int group) {
        return cluster.multicastGroup(group);
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

    /** imc_wait_cluster_event: the next join/leave, or null after {@code timeout}. */
    public ClusterEvent awaitClusterEvent(Duration timeout) throws InterruptedException {
        return cluster.awaitEvent(timeout);
    }

    public void onClusterEvent(Consumer<ClusterEvent> listener) {
        cluster.addListener(listener);
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
        }
    }
}
