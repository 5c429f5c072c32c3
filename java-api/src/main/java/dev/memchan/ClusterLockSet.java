package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.cluster.BidLock;
import dev.memchan.internal.cluster.CasLock;
import dev.memchan.internal.cluster.NodeLock;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeMutex;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A set of cluster-wide locks (imc_lkalloc / imc_lkacquire / imc_lkrelease) of one {@link LockKind}:
 * the Memory Channel bid lock (a region mapped broadcast + local copy and receive by every user, one
 * row of per-node bids per lock, see {@link BidLock}) or the remote compare-and-swap lock (a word per
 * lock in the home's memory, see {@link CasLock}). Locks held by a node that dies are released by the
 * surviving nodes' cluster service. Threads of one process may share a lock set: within the process
 * a local lock serializes them, since the node has one bid slot (one holder value) per lock. Processes
 * of one node share it too: the set's node mutex (in the node's local table) admits one process of the
 * node at a time, and is taken back, with the node's hold, from a process that died holding it.
 */
public final class ClusterLockSet implements AutoCloseable {
    /** A timeout that never expires; CasLock and BidLock compare deadlines by difference, so no overflow. */
    private static final long FOREVER_NANOS = Long.MAX_VALUE;
    private final Fabric fabric;
    private final Region region;
    private final LockKind kind;
    /** Bid sets: the transmit mapping (bids are cleared through it); null for CAS sets. */
    private final OutgoingMapping out;
    /** CAS sets: the words at the home; null for bid sets. */
    private final RemoteMapping home;
    private final NodeLock[] locks;
    /**
     * CAS sets: the same locks by their class, so the hot path makes no interface call; each also records
     * which thread of this process holds it (the word names the process; its CAS already excludes other
     * threads). Null for bid sets.
     */
    private final CasLock[] casLocks;
    /** Bid sets: one thread of this process per lock (the node has one bid slot per lock). */
    private final ReentrantLock[] local;
    /** The node's local table and this set's node mutex in it: one process of the node bids in the set at a time. */
    private final NodeLocal node;
    private final long nodeMutex;
    /** {@link #clearNodeBids()}, bound once: a lambda per acquire would allocate until escape analysis removes it. */
    private final Runnable clearNodeBids = this::clearNodeBids;

    private ClusterLockSet(Fabric fabric, Region region, LockKind kind, OutgoingMapping out, IncomingMapping in,
                           RemoteMapping home, int count) {
        this.fabric = fabric;
        this.region = region;
        this.kind = kind;
        this.out = out;
        this.home = home;
        this.node = fabric.context().nodeLocal();
        this.nodeMutex = node.lockSetMutex(region.entryIndex());
        this.locks = new NodeLock[count];
        this.casLocks = kind == LockKind.CAS ? new CasLock[count] : null;
        this.local = new ReentrantLock[count];
        long row = BidLock.rowSize(fabric.maxNodes());
        for (int i = 0; i < count; i++) {
            if (kind == LockKind.BID) {
                locks[i] = new BidLock(out.segment(), in.segment(), i * row, fabric.maxNodes(), fabric.nodeId(),
                        fabric.context().backend().incarnation(), out.writeCombining());
            } else {
                casLocks[i] = new CasLock(home.window(), i, fabric.nodeId(), node.pid(), fabric.context().backend().transmitWriteCombining());
                locks[i] = casLocks[i];
            }
            local[i] = new ReentrantLock();
        }
    }

    static ClusterLockSet open(Fabric fabric, long key, int count, LockKind kind) {
        long bytes = kind == LockKind.BID ? count * BidLock.rowSize(fabric.maxNodes()) : CasLock.setSize(count);
        Region region = fabric.allocateLockRegion(key, count, bytes, kind);
        try {
            if (kind == LockKind.BID) {
                OutgoingMapping out = region.attachTransmit(Route.broadcast(), true);
                IncomingMapping in = region.attachReceive(false);
                return new ClusterLockSet(fabric, region, kind, out, in, null, count);
            }
            int homeNode = region.home();
            if (homeNode == fabric.nodeId()) { // the home grants atomics on the words, and takes the same path to them
                region.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
            }
            return new ClusterLockSet(fabric, region, kind, null, null, region.attachRemote(homeNode), count);
        } catch (RuntimeException e) {
            region.close();
            throw e;
        }
    }

    public LockKind kind() {
        return kind;
    }

    public int size() {
        return locks.length;
    }

    /** The set's region (its pages, its home). */
    Region region() {
        return region;
    }

    private void check(int lock) {
        if (lock < 0 || lock >= locks.length) {
            outOfRange(lock);
        }
    }

    /**
     * A CAS set's lock {@code lock}: checked against the array it indexes, so the JIT drops the array's own
     * bounds check (the uncontended path must stay small enough to inline into callers).
     */
    private CasLock casLock(int lock) {
        if (lock < 0 || lock >= casLocks.length) {
            outOfRange(lock);
        }
        return casLocks[lock];
    }

    private void outOfRange(int lock) {
        throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " out of range 0.." + (locks.length - 1));
    }

    /** Blocks until lock {@code lock} is held by this thread. */
    public void acquire(int lock) {
        acquire(lock, FOREVER_NANOS);
    }

    /** Acquires within {@code timeout} or throws TIMEOUT. */
    public void acquire(int lock, Duration timeout) {
        acquire(lock, timeout.toNanos());
    }

    private void acquire(int lock, long timeoutNanos) {
        if (casLocks != null) {
            CasLock l = casLock(lock);
            long me = Thread.currentThread().threadId();
            if (l.heldByThread(me)) {
                alreadyHeld(lock);
            }
            l.acquire(timeoutNanos);
            l.holdingThread(me);
            return;
        }
        acquireBid(lock, timeoutNanos);
    }

    /**
     * Out of line, as {@link #releaseBid} and {@link #tryAcquireBid}: in a process using both kinds, the bid path
     * compiled into {@link #acquire(int)} made it too big for the JIT to inline into its callers.
     */
    private void acquireBid(int lock, long timeoutNanos) {
        check(lock);
        local[lock].lock();
        try {
            acquireNode();
            try {
                locks[lock].acquire(timeoutNanos);
            } catch (RuntimeException e) {
                releaseNode();
                throw e;
            }
        } catch (RuntimeException e) {
            local[lock].unlock();
            throw e;
        }
    }

    private static void alreadyHeld(int lock) {
        throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " is already held by this thread");
    }

    /**
     * A bid set's node mutex (held while any thread of this process holds one of its locks). Taken over
     * from a process of the node that died holding it: its bids, the node's, are cleared first. A CAS set
     * needs none: its words name the holding process, not only the node.
     */
    private void acquireNode() {
        if (kind == LockKind.CAS) {
            return;
        }
        NodeMutex.acquire(node.segment(), nodeMutex, node.pid(), clearNodeBids);
    }

    /** Takeover of the node mutex from a dead process of this node: its bids are the node's, cleared first. */
    private void clearNodeBids() {
        long row = BidLock.rowSize(fabric.maxNodes());
        for (int i = 0; i < locks.length; i++) {
            BidLock.clearBid(out.segment(), i * row, fabric.nodeId());
        }
    }

    private boolean tryAcquireNode() {
        return kind == LockKind.CAS || NodeMutex.tryAcquire(node.segment(), nodeMutex, node.pid());
    }

    private void releaseNode() {
        if (kind == LockKind.BID) {
            NodeMutex.release(node.segment(), nodeMutex, node.pid());
        }
    }

    /** One attempt; true when the lock is now held by this thread. */
    public boolean tryAcquire(int lock) {
        if (casLocks != null) {
            CasLock l = casLock(lock);
            long me = Thread.currentThread().threadId();
            if (!l.heldByThread(me) && l.tryAcquire()) {
                l.holdingThread(me);
                return true;
            }
            return false;
        }
        return tryAcquireBid(lock);
    }

    private boolean tryAcquireBid(int lock) {
        check(lock);
        if (!local[lock].tryLock()) {
            return false;
        }
        if (tryAcquireNode()) {
            if (locks[lock].tryAcquire()) {
                return true;
            }
            releaseNode();
        }
        local[lock].unlock();
        return false;
    }

    /** Releases a lock held by this thread; its protected stores are fenced before the release. */
    public void release(int lock) {
        if (casLocks != null) {
            CasLock l = casLock(lock);
            if (!l.heldByThread(Thread.currentThread().threadId())) {
                notHeld(lock);
            }
            l.release();
            return;
        }
        releaseBid(lock);
    }

    private void releaseBid(int lock) {
        check(lock);
        if (!local[lock].isHeldByCurrentThread()) {
            notHeld(lock);
        }
        locks[lock].release();
        releaseNode();
        local[lock].unlock();
    }

    private static void notHeld(int lock) {
        throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " is not held by this thread");
    }

    private boolean heldByCurrentThread(int lock) {
        return casLocks != null ? casLocks[lock].heldByThread(Thread.currentThread().threadId()) : local[lock].isHeldByCurrentThread();
    }

    /** The node holding lock {@code lock}, or -1 (a racing bid also shows as -1). */
    public int holder(int lock) {
        check(lock);
        return locks[lock].holder();
    }

    /** Releases locks still held by this process, detaches and deallocates. */
    @Override
    public void close() {
        for (int i = 0; i < locks.length; i++) {
            if (heldByCurrentThread(i)) {
                release(i);
            }
        }
        region.close();
        fabric.untrack(this);
    }
}
