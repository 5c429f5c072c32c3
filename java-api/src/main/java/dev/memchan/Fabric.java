package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.ClusterAdmin;
import dev.memchan.internal.node.NodeContext;
import dev.memchan.layout.Regs;
import dev.memchan.spi.Backend;

import java.time.Duration;
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
    private final NodeContext context;

    private Fabric(NodeContext context) {
        this.context = context;
    }

    /** Joins the fabric at {@code location} (see the class comment) as a new node. */
    public static Fabric open(String location, FabricOptions options) {
        return new Fabric(NodeContext.open(location, options));
    }

    /** This process's node underneath: backend, cluster service, resources (for the classes of this package). */
    NodeContext context() {
        return context;
    }

    public int nodeId() {
        return context.backend().nodeId();
    }

    public int maxNodes() {
        return context.backend().maxNodes();
    }

    public int pageSize() {
        return context.backend().pageSize();
    }

    /** Network pages of the window, including the {@value Regs#SYS_PAGES} system pages. */
    public int pageCount() {
        return context.backend().pageCount();
    }

    public String location() {
        return context.backend().location();
    }

    /**
     * The operator's side of this member (mcctl): the cluster's view, static carve-out and PCT transactions,
     * the adapter itself; see {@link ClusterAdmin}. Valid while this fabric is open. A location is
     * administered without joining it through {@link dev.memchan.admin.FabricAdmin}.
     */
    public ClusterAdmin admin() {
        context.ensureOpen();
        return context.cluster();
    }

    // ---- regions ----------------------------------------------------------------------------

    /**
     * imc_asalloc: allocates a region of {@code sizeBytes} (rounded up to whole pages) under {@code key}
     * with UNIX permission bits {@code mode} (read = receive, write = transmit), or joins the region
     * already allocated under {@code key}.
     */
    public Region allocate(long key, long sizeBytes, int mode) {
        return track(new Region(this, context.allocateRegion(key, sizeBytes, mode)));
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
        context.ensureOpen();
        if (kind == null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock kind must be BID or CAS, not null");
        }
        return track(switch (kind) {
            case BID -> BidLockSet.open(this, key, locks);
            case CAS -> CasLockSet.open(this, key, locks);
        });
    }

    Region allocateLockRegion(long key, int locks, long bytes, LockKind kind) {
        return new Region(this, context.allocateLockSet(key, locks, bytes, kind == LockKind.CAS));
    }

    /** Sets multicast group {@code group}'s members (a node mask); refused while a region uses the group. */
    public void setMulticastGroup(int group, int nodeMask) {
        context.ensureOpen();
        context.directory().setMulticastGroup(group, nodeMask);
    }

    public int multicastGroup(int group) {
        return context.directory().multicastGroup(group);
    }

    <T extends AutoCloseable> T track(T resource) {
        return context.track(resource);
    }

    void untrack(AutoCloseable resource) {
        context.untrack(resource);
    }

    // ---- membership, errors, ordering -------------------------------------------------------

    /** Node mask of the live members. */
    public int members() {
        return context.cluster().members();
    }

    /**
     * imc_wait_cluster_event: the next join/leave, or null after {@code timeout}. An
     * {@link ClusterEvent.Type#EVICTED} event says this node was declared dead while this process lived:
     * close this Fabric and open the node again to rejoin as a new incarnation.
     */
    public ClusterEvent awaitClusterEvent(Duration timeout) throws InterruptedException {
        return context.cluster().awaitEvent(timeout);
    }

    public void onClusterEvent(Consumer<ClusterEvent> listener) {
        context.cluster().addListener(listener);
    }

    /**
     * Remote reads and atomics this node refused as a home (its REMOTE_REFUSED register): pages it does not
     * grant the access on, misaligned words.
     */
    public long remoteRefused() {
        return context.remoteRefused();
    }

    /** Remote reads this node served as the home of network page {@code page} (its page counter; wraps at 2^32). */
    public long remoteReadsServed(int page) {
        return context.backend().pageCounter(page, Regs.SF_PAGE_COUNTER_READS);
    }

    /** Remote atomics this node served as the home of network page {@code page} (wraps at 2^32). */
    public long remoteAtomicsServed(int page) {
        return context.backend().pageCounter(page, Regs.SF_PAGE_COUNTER_ATOMICS);
    }

    /**
     * Sets the page counter threshold (PAGE_CNT_THRESHOLD): a page granted with
     * {@link RemoteAccess#COUNT_NOTIFY} whose read or atomic counter reaches it notifies this node
     * ({@link #awaitHotPage}). 0 turns it off.
     */
    public void setPageCountThreshold(int threshold) {
        context.backend().setPageCountThreshold(threshold);
    }

    /**
     * Waits for a page of this node to become hot (its counter reached the threshold) and returns it, or -1
     * after {@code timeout}. Consumes the notification: a second hot page before the call shows as the last one.
     */
    public int awaitHotPage(Duration timeout) {
        return context.awaitHotPage(timeout);
    }

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
        return context.backend().clusterTime();
    }

    /** imc_rderrcnt: transfers that may have been lost so far (always 0 on the soft fabric). */
    public long errorCount() {
        return context.backend().errorCount();
    }

    /**
     * imc_ckerrcnt: true when an error happened since {@code before} was read with {@link #errorCount()},
     * so the transfers in between may have been lost and must be repeated.
     */
    public boolean errorsSince(long before) {
        return context.backend().errorCount() != before;
    }

    /**
     * Acknowledge sweep: every store this process made before the call has reached its destinations.
     * Stronger than {@link OutgoingMapping#fence()}, which only orders stores. TIMEOUT when the acknowledgements
     * do not come within the backend's bound (1 s on an adapter or the soft fabric; on {@code ucx://} the time a
     * live hub may take, its death failing the barrier at once).
     */
    public void ackBarrier() {
        Backend backend = context.backend();
        backend.ackBarrier(backend.ackBarrierBound());
    }

    /** Leaves the cluster: closes every region, lock set and mapping of this node, then the adapter. */
    @Override
    public void close() {
        context.close();
    }
}
