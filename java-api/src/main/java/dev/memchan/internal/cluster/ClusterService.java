package dev.memchan.internal.cluster;

import dev.memchan.ClusterEvent;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The cluster service of one node: membership (heartbeats, failure detection, join/leave events),
 * the cluster lock and the region directory, all kept in the fabric's system pages (network pages
 * 0..SYS_PAGES-1) which every node maps broadcast + local copy for transmit and for receive. It uses
 * only {@link Backend}, so it is the same on the soft fabric and on the kernel driver's device.
 *
 * <p>Writes go through the transmit mapping and reads through the receive mapping, as they must on a
 * board. Inside the cluster lock nothing is read back that was just written: on a board the local
 * copy arrives a little later, so updates are computed on a snapshot and written whole; the acknowledge
 * sweep before the lock is released makes them visible everywhere before the next holder reads.
 */
public final class ClusterService implements AutoCloseable {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final long LOCK_TIMEOUT_NANOS = 2_000_000_000L;
    private static final int LOCK_ATTEMPTS = 15;
    /** Every system page is routed broadcast with local copy. */
    public static final int SYSTEM_TX_ENTRY = Route.broadcast().pctEntry(true, false);

    private final Backend backend;
    private final int me;
    private final int nodes;
    private final int pageSize;
    private final long hostId = HostIdentity.hostId();
    private final int pid = Posix.getpid();
    private final Backend.Grant sysTx;
    private final Backend.Grant sysRx;
    private final MemorySegment tx;
    private final MemorySegment rx;
    private final BidLock clusterLock;
    private final ReentrantLock localMutex = new ReentrantLock();
    private final long heartbeatPeriodNanos;
    private final long failureTimeoutNanos;
    private final int regionCount;
    private final BlockingQueue<ClusterEvent> events = new LinkedBlockingQueue<>(4096);
    private final List<java.util.function.Consumer<ClusterEvent>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final int[] seenState;
    private final long[] seenIncarnation;
    private final long[] lastHeartbeat;
    private final long[] lastChange;
    private final boolean[] judgedDead;
    private long heartbeat;
    private volatile boolean running;
    private Thread agent;

    public ClusterService(Backend backend, Duration heartbeatPeriod, Duration failureTimeout) {
        this.backend = backend;
        this.me = backend.nodeId();
        this.nodes = backend.maxNodes();
        this.pageSize = backend.pageSize();
        this.heartbeatPeriodNanos = heartbeatPeriod.toNanos();
        this.failureTimeoutNanos = failureTimeout.toNanos();
        this.regionCount = regionCapacity(pageSize);
        this.sysTx = backend.grantTransmit(0, SYS_PAGES, SYSTEM_TX_ENTRY);
        try {
            this.sysRx = backend.grantReceive(0, SYS_PAGES, RxPct.encode(true, false));
        } catch (RuntimeException e) {
            sysTx.close();
            throw e;
        }
        this.tx = sysTx.segment();
        this.rx = sysRx.segment();
        this.clusterLock = new BidLock(tx, rx, clusterLockRow(), nodes, me, backend.incarnation(), sysTx.writeCombining());
        this.seenState = new int[nodes];
        this.seenIncarnation = new long[nodes];
        this.lastHeartbeat = new long[nodes];
        this.lastChange = new long[nodes];
        this.judgedDead = new boolean[nodes];
    }

    private long lockBid(int n) {
        return SystemPagesDescriptor.lockBid(pageSize, n);
    }

    /** The cluster lock's row of bids (node 0's bid). */
    private long clusterLockRow() {
        return lockBid(0);
    }

    private long slot(int n) {
        return SystemPagesDescriptor.memberSlot(pageSize, n);
    }

    private long dir() {
        return SystemPagesDescriptor.directory(pageSize);
    }

    private long entryOffset(int index) {
        return SystemPagesDescriptor.regionEntry(pageSize, index);
    }

    public int nodeId() {
        return me;
    }

    public Backend backend() {
        return backend;
    }

    // ------------------------------------------------------------------------------------------
    // Cluster lock
    // ------------------------------------------------------------------------------------------

    /** Runs {@code body} holding the cluster lock; its writes are swept out before the lock is released. */
    public <T> T withClusterLock(Supplier<T> body) {
        localMutex.lock(); // one bidder per node: our bid slot is the node's
        try {
            acquireClusterLock();
            try {
                return body.get();
            } finally {
                backend.ackBarrier(Duration.ofSeconds(1));
                clusterLock.release();
            }
        } finally {
            localMutex.unlock();
        }
    }

    private void acquireClusterLock() {
        for (int attempt = 0; ; attempt++) {
            try {
                clusterLock.acquire(LOCK_TIMEOUT_NANOS);
                return;
            } catch (MemchanException e) {
                if (e.kind() != Kind.TIMEOUT || attempt >= LOCK_ATTEMPTS) {
                    throw new MemchanException(Kind.TIMEOUT, "cluster lock of " + backend.location()
                            + " not acquired: held by node " + BidLock.holder(rx, clusterLockRow(), nodes), e);
                }
                clearBidsOfDeadBidders();
            }
        }
    }

    /** A node that died holding (or bidding for) the cluster lock must not block everyone. */
    private void clearBidsOfDeadBidders() {
        long now = System.nanoTime();
        for (int n = 0; n < nodes; n++) {
            if (n != me && (long) LONG.getVolatile(rx, lockBid(n)) != 0 && isDead(n, now, true)) {
                BidLock.clearBid(tx, clusterLockRow(), n);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Membership
    // ------------------------------------------------------------------------------------------

    /** Joins the membership, cleaning up after dead nodes found on the way, and starts the agent. */
    public void join() {
        // Checked before bidding too: a second process on this node must not bid in the member's slot.
        refuseSecondMember();
        clearBidsOfDeadBidders();
        withClusterLock(() -> {
            long now = System.nanoTime();
            refuseSecondMember(); // again under the lock: two joiners may have raced past the first check
            for (int n = 0; n < nodes; n++) {
                int state = (int) INT.getVolatile(rx, slot(n) + SYS_MEMBER_STATE);
                if (state == SYS_NODE_STATE_ABSENT) {
                    continue;
                }
                long inc = (long) LONG.getVolatile(rx, slot(n) + SYS_MEMBER_INCARNATION);
                if (n == me || isDead(n, now, true)) { // my node ID's previous life, or a dead peer
                    cleanupLocked(n, inc);
                }
            }
            long s = slot(me);
            LONG.setVolatile(tx, s + SYS_MEMBER_INCARNATION, backend.incarnation());
            LONG.setVolatile(tx, s + SYS_MEMBER_PID, (long) pid);
            LONG.setVolatile(tx, s + SYS_MEMBER_HOST_ID, hostId);
            LONG.setVolatile(tx, s + SYS_MEMBER_HEARTBEAT, 0L);
            LONG.setVolatile(tx, s + SYS_MEMBER_JOIN_SEQ, generation());
            bumpGeneration();
            INT.setVolatile(tx, s + SYS_MEMBER_STATE, SYS_NODE_STATE_ALIVE);
            return null;
        });
        running = true;
        agent = Thread.ofPlatform().daemon().name("memchan-agent-" + me).start(this::agentLoop);
    }

    /**
     * The directory and the lock bids are kept per node: a second member process on the same node
     * would share (and corrupt) the first one's bids and attachments.
     */
    private void refuseSecondMember() {
        long mine = slot(me);
        long holder = (long) LONG.getVolatile(rx, mine + SYS_MEMBER_PID);
        if ((int) INT.getVolatile(rx, mine + SYS_MEMBER_STATE) == SYS_NODE_STATE_ALIVE
                && (long) LONG.getVolatile(rx, mine + SYS_MEMBER_HOST_ID) == hostId
                && holder != pid && Posix.processExists((int) holder)) {
            throw nodeInUse(me, backend.location(), holder);
        }
    }

    /** The refusal of a second member process on node {@code n}, held by {@code pid}. */
    public static MemchanException nodeInUse(int n, String location, long pid) {
        return new MemchanException(Kind.IN_USE, "node ID " + n + " of " + location + " is in use by pid "
                + pid + " (a member process); one process per node joins the cluster");
    }

    /**
     * Dead: on this host (same boot ID and PID namespace) the kernel's word counts: the pid is gone.
     * Elsewhere (a guest VM) the heartbeat has not moved for the failure timeout. With {@code fresh},
     * a peer on another host is observed for up to the timeout now.
     */
    private boolean isDead(int n, long now, boolean fresh) {
        long s = slot(n);
        if ((int) INT.getVolatile(rx, s + SYS_MEMBER_STATE) == SYS_NODE_STATE_ABSENT) {
            return true;
        }
        if ((long) LONG.getVolatile(rx, s + SYS_MEMBER_HOST_ID) == hostId) {
            return !Posix.processExists((int) (long) LONG.getVolatile(rx, s + SYS_MEMBER_PID));
        }
        if (!fresh) {
            return now - lastChange[n] > failureTimeoutNanos;
        }
        long first = (long) LONG.getVolatile(rx, s + SYS_MEMBER_HEARTBEAT);
        long deadline = now + failureTimeoutNanos;
        while (System.nanoTime() < deadline) {
            if ((long) LONG.getVolatile(rx, s + SYS_MEMBER_HEARTBEAT) != first) {
                return false;
            }
            sleepNanos(heartbeatPeriodNanos / 2);
        }
        return true;
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void agentLoop() {
        while (running) {
            try {
                LONG.setVolatile(tx, slot(me) + SYS_MEMBER_HEARTBEAT, ++heartbeat);
                watch();
            } catch (MemchanException e) {
                if (!running) {
                    return;
                }
                // A failed cleanup is retried at the next tick; the error is not lost silently.
                System.err.println("memchan: node " + me + " cluster agent: " + e.getMessage());
            } catch (IllegalStateException e) {
                return; // mappings closed under us: the fabric is closing
            }
            sleepNanos(heartbeatPeriodNanos);
        }
    }

    private void watch() {
        long now = System.nanoTime();
        for (int n = 0; n < nodes; n++) {
            long s = slot(n);
            int state = (int) INT.getVolatile(rx, s + SYS_MEMBER_STATE);
            long inc = (long) LONG.getVolatile(rx, s + SYS_MEMBER_INCARNATION);
            boolean alive = state == SYS_NODE_STATE_ALIVE;
            boolean wasAlive = seenState[n] == SYS_NODE_STATE_ALIVE;
            if (wasAlive && (!alive || inc != seenIncarnation[n])) {
                publish(new ClusterEvent(ClusterEvent.Type.LEAVE, n, seenIncarnation[n], judgedDead[n]));
                judgedDead[n] = false;
            }
            if (alive && (!wasAlive || inc != seenIncarnation[n])) {
                publish(new ClusterEvent(ClusterEvent.Type.JOIN, n, inc, false));
                lastHeartbeat[n] = (long) LONG.getVolatile(rx, s + SYS_MEMBER_HEARTBEAT);
                lastChange[n] = now;
            }
            seenState[n] = alive ? SYS_NODE_STATE_ALIVE : state;
            seenIncarnation[n] = inc;
            if (!alive || n == me) {
                continue;
            }
            long hb = (long) LONG.getVolatile(rx, s + SYS_MEMBER_HEARTBEAT);
            if (hb != lastHeartbeat[n]) {
                lastHeartbeat[n] = hb;
                lastChange[n] = now;
            }
            if (isDead(n, now, false)) {
                judgedDead[n] = true;
                BidLock.clearBid(tx, clusterLockRow(), n); // it may have died holding the cluster lock
                int dead = n;
                withClusterLock(() -> cleanupLocked(dead, inc));
            }
        }
    }

    private void publish(ClusterEvent e) {
        events.offer(e);
        for (var l : listeners) {
            l.accept(e);
        }
    }

    public ClusterEvent awaitEvent(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public void addListener(java.util.function.Consumer<ClusterEvent> listener) {
        listeners.add(listener);
    }

    /** Node mask of the members now alive. */
    public int members() {
        int mask = 0;
        for (int n = 0; n < nodes; n++) {
            if ((int) INT.getVolatile(rx, slot(n) + SYS_MEMBER_STATE) == SYS_NODE_STATE_ALIVE) {
                mask |= 1 << n;
            }
        }
        return mask;
    }

    public long heartbeatOf(int n) {
        return (long) LONG.getVolatile(rx, slot(n) + SYS_MEMBER_HEARTBEAT);
    }

    public long pidOf(int n) {
        return (long) LONG.getVolatile(rx, slot(n) + SYS_MEMBER_PID);
    }

    public long incarnationOf(int n) {
        return (long) LONG.getVolatile(rx, slot(n) + SYS_MEMBER_INCARNATION);
    }

    public long generation() {
        return (long) LONG.getVolatile(rx, dir() + SYS_DIR_GENERATION);
    }

    private long bumpGeneration() {
        long g = generation() + 1;
        LONG.setVolatile(tx, dir() + SYS_DIR_GENERATION, g);
        return g;
    }

    /**
     * Removes node {@code n} (incarnation {@code inc}) from the cluster's shared state; idempotent.
     * Caller holds the cluster lock.
     */
    private Void cleanupLocked(int n, long inc) {
        long s = slot(n);
        if ((int) INT.getVolatile(rx, s + SYS_MEMBER_STATE) == SYS_NODE_STATE_ABSENT
                || (long) LONG.getVolatile(rx, s + SYS_MEMBER_INCARNATION) != inc) {
            return null; // someone else already did it
        }
        INT.setVolatile(tx, s + SYS_MEMBER_STATE, SYS_NODE_STATE_LEAVING);
        int bit = 1 << n;
        for (int i = 0; i < regionCount; i++) {
            RegionEntry e = readEntry(i);
            if (e.isFree() || e.isStatic() || ((e.users | e.txNodes | e.rxNodes) & bit) == 0) {
                continue; // a static carve-out belongs to the operator's PCT entries, not to a member
            }
            if (e.isLockSet() && (e.users & bit) != 0) {
                clearLockSetBids(e, n);
            }
            removeUser(e, bit);
        }
        if (n != me) {
            BidLock.clearBid(tx, clusterLockRow(), n); // our own bid is the lock we hold now
        }
        bumpGeneration();
        INT.setVolatile(tx, s + SYS_MEMBER_STATE, SYS_NODE_STATE_ABSENT);
        if (n != me) {
            backend.ackBarrier(Duration.ofSeconds(1));
            backend.releaseDeadNode(n, inc);
        }
        return null;
    }

    private void clearLockSetBids(RegionEntry e, int n) {
        try (Backend.Grant g = backend.grantTransmit(e.firstPage, e.pageCount, SYSTEM_TX_ENTRY)) {
            long row = BidLock.rowSize(nodes);
            for (int lock = 0; lock < e.lockCount(); lock++) {
                BidLock.clearBid(g.segment(), lock * row, n);
            }
            backend.ackBarrier(Duration.ofSeconds(1));
        }
    }

    /** Leaves the membership cleanly: everything this node held in the directory is released. */
    @Override
    public void close() {
        running = false;
        if (agent != null) {
            agent.interrupt();
            try {
                agent.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            withClusterLock(() -> cleanupLocked(me, backend.incarnation()));
        } finally {
            sysTx.close();
            sysRx.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Region directory
    // ------------------------------------------------------------------------------------------

    /** A snapshot of one directory entry. */
    public static final class RegionEntry {
        public int index;
        public int state;
        public int mode;
        public long key;
        public int uid;
        public int gid;
        public int firstPage;
        public int pageCount;
        public int users;
        public int txNodes;
        public int rxNodes;
        public int txLoopback;
        public int route;
        public int flags;
        public long generation;

        public boolean isLockSet() {
            return SystemPagesDescriptor.regionFlagsLockset(flags);
        }

        /** A static carve-out: pages the operator routed with mcctl pct / apply; USERS = nodes holding such entries. */
        public boolean isStatic() {
            return SystemPagesDescriptor.regionFlagsStatic(flags);
        }

        public int lockCount() {
            return SystemPagesDescriptor.regionFlagsLockCount(flags);
        }

        public boolean routed() {
            return SystemPagesDescriptor.regionRouteRouted(route);
        }

        /** The route's DEST_KIND and DEST bits, without ROUTED. */
        public int routeBits() {
            return route & ~SYS_REGION_ROUTE_ROUTED_MASK;
        }

        public boolean isFree() {
            return state == SYS_REGION_STATE_FREE;
        }
    }

    public RegionEntry readEntry(int i) {
        return decodeEntry(rx, pageSize, i);
    }

    /** Directory entries that fit in the region pages (pages SYS_REGION_PAGES_FIRST..SYS_PAGES-1). */
    public static int regionCapacity(int pageSize) {
        return (int) SystemPagesDescriptor.regionCapacity(pageSize);
    }

    /**
     * Entry {@code i} of the directory in {@code pages} (the system pages, page 0 at offset 0): the one
     * decoder of the region-entry layout, for the cluster service and for read-only views (mcctl).
     */
    public static RegionEntry decodeEntry(MemorySegment pages, int pageSize, int i) {
        long o = SystemPagesDescriptor.regionEntry(pageSize, i);
        RegionEntry e = new RegionEntry();
        e.index = i;
        e.state = (int) INT.getVolatile(pages, o + SYS_REGION_STATE);
        e.mode = (int) INT.getVolatile(pages, o + SYS_REGION_MODE);
        e.key = (long) LONG.getVolatile(pages, o + SYS_REGION_KEY);
        e.uid = (int) INT.getVolatile(pages, o + SYS_REGION_UID);
        e.gid = (int) INT.getVolatile(pages, o + SYS_REGION_GID);
        e.firstPage = (int) INT.getVolatile(pages, o + SYS_REGION_FIRST_PAGE);
        e.pageCount = (int) INT.getVolatile(pages, o + SYS_REGION_PAGE_COUNT);
        e.users = (int) INT.getVolatile(pages, o + SYS_REGION_USERS);
        e.txNodes = (int) INT.getVolatile(pages, o + SYS_REGION_TX_NODES);
        e.rxNodes = (int) INT.getVolatile(pages, o + SYS_REGION_RX_NODES);
        e.txLoopback = (int) INT.getVolatile(pages, o + SYS_REGION_TX_LOOPBACK);
        e.route = (int) INT.getVolatile(pages, o + SYS_REGION_ROUTE);
        e.flags = (int) INT.getVolatile(pages, o + SYS_REGION_FLAGS);
        e.generation = (long) LONG.getVolatile(pages, o + SYS_REGION_GENERATION);
        return e;
    }

    /** Writes the body first and STATE last, so a half-written new entry is never taken as allocated. */
    private void writeEntry(RegionEntry e) {
        long o = entryOffset(e.index);
        INT.setVolatile(tx, o + SYS_REGION_MODE, e.mode);
        LONG.setVolatile(tx, o + SYS_REGION_KEY, e.key);
        INT.setVolatile(tx, o + SYS_REGION_UID, e.uid);
        INT.setVolatile(tx, o + SYS_REGION_GID, e.gid);
        INT.setVolatile(tx, o + SYS_REGION_FIRST_PAGE, e.firstPage);
        INT.setVolatile(tx, o + SYS_REGION_PAGE_COUNT, e.pageCount);
        INT.setVolatile(tx, o + SYS_REGION_USERS, e.users);
        INT.setVolatile(tx, o + SYS_REGION_TX_NODES, e.txNodes);
        INT.setVolatile(tx, o + SYS_REGION_RX_NODES, e.rxNodes);
        INT.setVolatile(tx, o + SYS_REGION_TX_LOOPBACK, e.txLoopback);
        INT.setVolatile(tx, o + SYS_REGION_ROUTE, e.route);
        INT.setVolatile(tx, o + SYS_REGION_FLAGS, e.flags);
        LONG.setVolatile(tx, o + SYS_REGION_GENERATION, e.generation);
        INT.setVolatile(tx, o + SYS_REGION_STATE, e.state);
    }

    /** Takes the nodes of {@code bits} out of a region; the last user frees it. Caller holds the cluster lock. */
    private void removeUser(RegionEntry e, int bits) {
        e.users &= ~bits;
        e.txNodes &= ~bits;
        e.rxNodes &= ~bits;
        e.txLoopback &= ~bits;
        if (e.txNodes == 0) {
            e.route = 0;
        }
        if (e.users == 0) {
            freeEntry(e.index);
        } else {
            writeEntry(e);
        }
    }

    /** STATE first: from that store on the entry and its pages are free. */
    private void freeEntry(int i) {
        long o = entryOffset(i);
        INT.setVolatile(tx, o + SYS_REGION_STATE, SYS_REGION_STATE_FREE);
        for (long b = SYS_REGION_STATE + Integer.BYTES; b < SYS_REGION_ENTRY_SIZE; b += Integer.BYTES) {
            INT.setVolatile(tx, o + b, 0);
        }
    }

    public int regionCapacity() {
        return regionCount;
    }

    /** All allocated entries (for status displays). */
    public List<RegionEntry> regions() {
        List<RegionEntry> out = new ArrayList<>();
        for (int i = 0; i < regionCount; i++) {
            RegionEntry e = readEntry(i);
            if (!e.isFree()) {
                out.add(e);
            }
        }
        return out;
    }

    private RegionEntry findLocked(long key) {
        for (int i = 0; i < regionCount; i++) {
            RegionEntry e = readEntry(i);
            if (!e.isFree() && e.key == key) {
                return e;
            }
        }
        return null;
    }

    /** Entry of a region this node allocated; throws NOT_FOUND when it was freed or reused. */
    private RegionEntry current(int index, long generation) {
        RegionEntry e = readEntry(index);
        if (e.isFree() || e.generation != generation) {
            throw new MemchanException(Kind.NOT_FOUND, "region (directory entry " + index + ") no longer exists");
        }
        return e;
    }

    /**
     * imc_asalloc: allocates {@code pages} network pages under {@code key}, or joins the region
     * already allocated under that key (same size and kind required).
     */
    public RegionEntry allocate(long key, int pages, int mode, int flags, Credentials cred) {
        if (pages < 1 || pages > backend.pageCount() - SYS_PAGES) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region of " + pages + " pages: must be 1.."
                    + (backend.pageCount() - SYS_PAGES) + " on " + backend.location());
        }
        if ((mode & ~0777) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("mode 0%o has bits outside 0777", mode));
        }
        return withClusterLock(() -> {
            RegionEntry e = findLocked(key);
            if (e != null && e.isStatic()) {
                throw new MemchanException(Kind.IN_USE, String.format("key 0x%x names a static carve-out (pages %d..%d, "
                        + "routed by mcctl pct or apply); choose another key", key, e.firstPage, e.firstPage + e.pageCount - 1));
            }
            if (e != null) {
                if (e.pageCount != pages || e.flags != flags) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, String.format(
                            "key 0x%x is allocated as %s of %d pages; asked for %s of %d pages", key,
                            e.isLockSet() ? "a lock set of " + e.lockCount() + " locks" : "a region", e.pageCount,
                            SystemPagesDescriptor.regionFlagsLockset(flags)
                                    ? "a lock set of " + SystemPagesDescriptor.regionFlagsLockCount(flags) + " locks" : "a region", pages));
                }
                if (!cred.permits(e, 4) && !cred.permits(e, 2)) {
                    throw new MemchanException(Kind.PERMISSION, String.format("key 0x%x (mode 0%o, uid %d, gid %d) "
                            + "grants neither read nor write to uid %d", key, e.mode, e.uid, e.gid, cred.uid()));
                }
                e.users |= 1 << me;
                writeEntry(e);
                return e;
            }
            int free = freeEntryIndex();
            if (free < 0) {
                throw new MemchanException(Kind.IN_USE, "the region directory is full (" + regionCount + " regions)");
            }
            int first = findPages(pages);
            zeroPages(first, pages);
            e = new RegionEntry();
            e.index = free;
            e.state = SYS_REGION_STATE_ALLOCATED;
            e.mode = mode;
            e.key = key;
            e.uid = cred.uid();
            e.gid = cred.gid();
            e.firstPage = first;
            e.pageCount = pages;
            e.users = 1 << me;
            e.flags = flags;
            e.generation = bumpGeneration();
            writeEntry(e);
            return e;
        });
    }

    /**
     * Records that node {@code node} holds operator-written PCT entries on pages {@code first ..
     * first + count - 1} (mcctl pct set / apply): the pages join the static carve-outs that cover them,
     * and every run not yet covered becomes a new carve-out, so the allocator never hands them to a
     * region. Refused if a page belongs to a region. Caller holds the cluster lock ({@link #withClusterLock}).
     */
    public void reserveStaticLocked(int node, int first, int count) {
        if (node < 0 || node >= nodes || first < SYS_PAGES || count < 1 || first + count > backend.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "static carve-out of pages " + first + "+" + count + " for node "
                    + node + ": outside the window " + SYS_PAGES + ".." + (backend.pageCount() - 1) + " or node range");
        }
        int end = first + count;
        boolean[] covered = new boolean[count];
        for (RegionEntry e : regions()) {
            int lo = Math.max(first, e.firstPage);
            int hi = Math.min(end, e.firstPage + e.pageCount);
            if (lo >= hi) {
                continue;
            }
            if (!e.isStatic()) {
                throw new MemchanException(Kind.IN_USE, String.format("page %d belongs to region 0x%x (pages %d..%d, allocated "
                        + "in the directory); its PCT entries follow the region's attachments", lo, e.key, e.firstPage,
                        e.firstPage + e.pageCount - 1));
            }
            for (int p = lo; p < hi; p++) {
                covered[p - first] = true;
            }
            if ((e.users & (1 << node)) == 0) {
                e.users |= 1 << node;
                writeEntry(e);
            }
        }
        for (int p = first; p < end; ) {
            if (covered[p - first]) {
                p++;
                continue;
            }
            int runEnd = p;
            while (runEnd < end && !covered[runEnd - first]) {
                runEnd++;
            }
            int free = freeEntryIndex();
            if (free < 0) {
                throw new MemchanException(Kind.IN_USE, "the region directory is full (" + regionCount
                        + " entries): no room for the static carve-out of pages " + p + ".." + (runEnd - 1));
            }
            RegionEntry e = new RegionEntry();
            e.index = free;
            e.state = SYS_REGION_STATE_ALLOCATED;
            e.key = SYS_STATIC_KEY | p;
            e.firstPage = p;
            e.pageCount = runEnd - p;
            e.users = 1 << node;
            e.flags = SystemPagesDescriptor.regionFlags(false, true, 0);
            e.generation = bumpGeneration();
            writeEntry(e);
            p = runEnd;
        }
    }

    /**
     * Drops node {@code n} from every static carve-out where {@code holds} says it has no PCT entry on
     * any page any more, for the nodes in {@code visible} (an adapter sees only its own PCT); a carve-out
     * no node holds is freed. Caller holds the cluster lock.
     */
    public void releaseStaticLocked(int visible, java.util.function.BiPredicate<Integer, Integer> holds) {
        for (RegionEntry e : regions()) {
            if (!e.isStatic()) {
                continue;
            }
            int drop = 0;
            for (int n = 0; n < nodes; n++) {
                int bit = 1 << n;
                if ((e.users & visible & bit) == 0) {
                    continue;
                }
                boolean any = false;
                for (int p = e.firstPage; p < e.firstPage + e.pageCount && !any; p++) {
                    any = holds.test(n, p);
                }
                if (!any) {
                    drop |= bit;
                }
            }
            if (drop != 0) {
                removeUser(e, drop);
                bumpGeneration();
            }
        }
    }

    private int freeEntryIndex() {
        for (int i = 0; i < regionCount; i++) {
            if ((int) INT.getVolatile(rx, entryOffset(i) + SYS_REGION_STATE) == SYS_REGION_STATE_FREE) {
                return i;
            }
        }
        return -1;
    }

    private int findPages(int pages) {
        List<int[]> used = new ArrayList<>();
        for (int i = 0; i < regionCount; i++) {
            RegionEntry e = readEntry(i);
            if (!e.isFree()) {
                used.add(new int[]{e.firstPage, e.firstPage + e.pageCount});
            }
        }
        used.sort((a, b) -> Integer.compare(a[0], b[0]));
        int cursor = SYS_PAGES;
        int largest = 0;
        for (int[] u : used) {
            if (u[0] - cursor >= pages) {
                return cursor;
            }
            largest = Math.max(largest, u[0] - cursor);
            cursor = Math.max(cursor, u[1]);
        }
        if (backend.pageCount() - cursor >= pages) {
            return cursor;
        }
        largest = Math.max(largest, backend.pageCount() - cursor);
        throw new MemchanException(Kind.IN_USE, "no room for " + pages + " pages on " + backend.location()
                + ": the largest free run is " + largest + " pages");
    }

    /** A new region starts zeroed on every node: freed pages keep their last contents. */
    private void zeroPages(int first, int count) {
        try (Backend.Grant g = backend.grantTransmit(first, count, SYSTEM_TX_ENTRY)) {
            g.segment().fill((byte) 0);
            backend.ackBarrier(Duration.ofSeconds(1));
        }
    }

    /** Destination node mask of a transmitter {@code t} on {@code route} (without its local copy). */
    private int destinations(int route, int t) {
        int kind = SystemPagesDescriptor.regionRouteDestKind(route);
        int dest = SystemPagesDescriptor.regionRouteDest(route);
        int all = nodes == 32 ? -1 : (1 << nodes) - 1;
        return switch (kind) {
            case DEST_KIND_NODE -> 1 << dest;
            case DEST_KIND_BROADCAST -> all & ~(1 << t);
            default -> multicastGroup(dest) & ~(1 << t);
        };
    }

    /** The routing invariant (docs/soft-fabric.md): every receiver is a destination of every transmitter. */
    private void checkRouting(RegionEntry e, int txNodes, int txLoopback, int rxNodes, int route) {
        for (int t = 0; t < nodes; t++) {
            if ((txNodes & (1 << t)) == 0) {
                continue;
            }
            int reach = destinations(route, t) | (txLoopback & (1 << t));
            int missed = rxNodes & ~reach;
            if (missed != 0) {
                int r = Integer.numberOfTrailingZeros(missed);
                String why = r == t ? "node " + t + " would receive the pages it transmits without local copy"
                        : "node " + r + " receives the region but transmitter node " + t + " routes it to "
                        + Route.fromPct(route);
                throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x: %s; "
                        + "every receiver must be a destination of every transmitter", e.key, why));
            }
        }
    }

    /** imc_asattach / imc_asattach_ptp bookkeeping: this node transmits on the region. */
    public RegionEntry attachTransmit(int index, long generation, Route route, boolean loopback, Credentials cred) {
        return withClusterLock(() -> {
            RegionEntry e = current(index, generation);
            if (!cred.permits(e, 2)) {
                throw new MemchanException(Kind.PERMISSION, String.format("region 0x%x (mode 0%o, uid %d, gid %d) "
                        + "is not writable by uid %d: no transmit", e.key, e.mode, e.uid, e.gid, cred.uid()));
            }
            int routeBits = route.pctEntry(false, false) & (SYS_REGION_ROUTE_DEST_KIND_MASK | SYS_REGION_ROUTE_DEST_MASK);
            if (e.routed() && e.routeBits() != routeBits) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x is routed to %s by node(s) "
                        + "%s; one network page has one route, so it cannot also go to %s", e.key,
                        Route.fromPct(e.route), maskString(e.txNodes), route));
            }
            int bit = 1 << me;
            if ((e.txNodes & bit) != 0 && ((e.txLoopback & bit) != 0) != loopback) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x is already attached for "
                        + "transmit by this node %s local copy", e.key, loopback ? "without" : "with"));
            }
            int txNodes = e.txNodes | bit;
            int txLoop = loopback ? e.txLoopback | bit : e.txLoopback & ~bit;
            checkRouting(e, txNodes, txLoop, e.rxNodes, routeBits);
            e.txNodes = txNodes;
            e.txLoopback = txLoop;
            e.route = routeBits | SYS_REGION_ROUTE_ROUTED_MASK;
            writeEntry(e);
            return e;
        });
    }

    /** imc_asattach with IMC_RECEIVE bookkeeping: this node receives the region. */
    public RegionEntry attachReceive(int index, long generation, Credentials cred) {
        return withClusterLock(() -> {
            RegionEntry e = current(index, generation);
            if (!cred.permits(e, 4)) {
                throw new MemchanException(Kind.PERMISSION, String.format("region 0x%x (mode 0%o, uid %d, gid %d) "
                        + "is not readable by uid %d: no receive", e.key, e.mode, e.uid, e.gid, cred.uid()));
            }
            int rxNodes = e.rxNodes | (1 << me);
            checkRouting(e, e.txNodes, e.txLoopback, rxNodes, e.routeBits());
            e.rxNodes = rxNodes;
            writeEntry(e);
            return e;
        });
    }

    /** The last transmit or receive attachment of this node to the region went away. */
    public void detach(int index, long generation, boolean transmit) {
        withClusterLock(() -> {
            RegionEntry e = readEntry(index);
            if (e.isFree() || e.generation != generation) {
                return null;
            }
            int bit = 1 << me;
            if (transmit) {
                e.txNodes &= ~bit;
                e.txLoopback &= ~bit;
                if (e.txNodes == 0) {
                    e.route = 0;
                }
            } else {
                e.rxNodes &= ~bit;
            }
            writeEntry(e);
            return null;
        });
    }

    /** imc_asdealloc: this node no longer uses the region; the last user frees it. */
    public void release(int index, long generation) {
        withClusterLock(() -> {
            RegionEntry e = readEntry(index);
            if (e.isFree() || e.generation != generation) {
                return null;
            }
            removeUser(e, 1 << me);
            bumpGeneration();
            return null;
        });
    }

    public int multicastGroup(int group) {
        checkGroup(group);
        return (int) INT.getVolatile(rx, SystemPagesDescriptor.mcastGroup(pageSize, group));
    }

    private static void checkGroup(int group) {
        if (group < 0 || group >= MULTICAST_GROUPS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "multicast group " + group + " out of range 0.." + (MULTICAST_GROUPS - 1));
        }
    }

    public void setMulticastGroup(int group, int nodeMask) {
        checkGroup(group);
        int all = nodes == 32 ? -1 : (1 << nodes) - 1;
        if ((nodeMask & ~all) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "multicast group " + group + ": nodes " + maskString(nodeMask & ~all)
                    + " are out of range 0.." + (nodes - 1));
        }
        withClusterLock(() -> {
            for (RegionEntry e : regions()) {
                int kind = SystemPagesDescriptor.regionRouteDestKind(e.route);
                int dest = SystemPagesDescriptor.regionRouteDest(e.route);
                if (e.routed() && kind == DEST_KIND_MULTICAST && dest == group) {
                    throw new MemchanException(Kind.IN_USE, String.format("multicast group %d is in use by region 0x%x; "
                            + "detach its transmitters first", group, e.key));
                }
            }
            INT.setVolatile(tx, SystemPagesDescriptor.mcastGroup(pageSize, group), nodeMask);
            bumpGeneration();
            return null;
        });
    }

    public static String maskString(int mask) {
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < 32; n++) {
            if ((mask & (1 << n)) != 0) {
                sb.append(sb.isEmpty() ? "" : ",").append(n);
            }
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
