package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.cluster.BidLock;
import dev.memchan.internal.cluster.TransmitStores;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeMutex;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link LockKind#BID}: the Memory Channel bid lock ({@link BidLock}), one row of per-node bids per lock in a
 * region mapped broadcast + local copy and receive by every user. The node has one bid slot per lock, so
 * within the process a Java lock per lock serializes the threads, and the set's node mutex (in the node's
 * local table) admits one process of the node at a time; it is taken back, with the node's bids, from a
 * process that died holding it.
 */
final class BidLockSet implements ClusterLockSet {
    /** A timeout that never expires; BidLock compares deadlines by difference, so no overflow. */
    private static final long FOREVER_NANOS = Long.MAX_VALUE;
    private final Fabric fabric;
    private final Region region;
    /** The stores into the transmit mapping: bids are made and cleared through it. */
    private final TransmitStores out;
    private final BidLock[] locks;
    /** One thread of this process per lock (the node has one bid slot per lock). */
    private final ReentrantLock[] local;
    /** The node's local table and this set's node mutex in it: one process of the node bids in the set at a time. */
    private final NodeLocal node;
    private final long nodeMutex;
    private final long rowSize;
    /** {@link #clearNodeBids()}, bound once: a lambda per acquire would allocate until escape analysis removes it. */
    private final Runnable clearNodeBids = this::clearNodeBids;

    private BidLockSet(Fabric fabric, Region region, OutgoingMapping out, IncomingMapping in, int count) {
        this.fabric = fabric;
        this.region = region;
        this.out = new TransmitStores(fabric.context().backend(), out.grant());
        this.node = fabric.context().nodeLocal();
        this.nodeMutex = node.lockSetMutex(region.entryIndex());
        this.rowSize = BidLock.rowSize(fabric.maxNodes());
        this.locks = new BidLock[count];
        this.local = new ReentrantLock[count];
        for (int i = 0; i < count; i++) {
            locks[i] = new BidLock(this.out, in.segment(), i * rowSize, fabric.maxNodes(), fabric.nodeId(),
                    fabric.context().backend().incarnation(), out.writeCombining());
            local[i] = new ReentrantLock();
        }
    }

    /** The set under {@code key} (created or joined); its region is closed again when the set cannot be made. */
    static BidLockSet open(Fabric fabric, long key, int count) {
        Region region = fabric.allocateLockRegion(key, count, count * BidLock.rowSize(fabric.maxNodes()), LockKind.BID);
        try {
            OutgoingMapping out = region.attachTransmit(Route.broadcast(), true);
            IncomingMapping in = region.attachReceive(false);
            return new BidLockSet(fabric, region, out, in, count);
        } catch (RuntimeException e) {
            region.close();
            throw e;
        }
    }

    @Override
    public LockKind kind() {
        return LockKind.BID;
    }

    @Override
    public int size() {
        return locks.length;
    }

    private void check(int lock) {
        if (lock < 0 || lock >= locks.length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " out of range 0.." + (locks.length - 1));
        }
    }

    @Override
    public void acquire(int lock) {
        acquire(lock, FOREVER_NANOS);
    }

    @Override
    public void acquire(int lock, Duration timeout) {
        acquire(lock, timeout.toNanos());
    }

    private void acquire(int lock, long timeoutNanos) {
        check(lock);
        local[lock].lock();
        try {
            NodeMutex.acquire(node.segment(), nodeMutex, node.pid(), clearNodeBids);
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

    /** Takeover of the node mutex from a dead process of this node: its bids are the node's, cleared first. */
    private void clearNodeBids() {
        for (int i = 0; i < locks.length; i++) {
            BidLock.clearBid(out, i * rowSize, fabric.nodeId());
        }
    }

    private void releaseNode() {
        NodeMutex.release(node.segment(), nodeMutex, node.pid());
    }

    @Override
    public boolean tryAcquire(int lock) {
        check(lock);
        if (!local[lock].tryLock()) {
            return false;
        }
        if (NodeMutex.tryAcquire(node.segment(), nodeMutex, node.pid())) {
            if (locks[lock].tryAcquire()) {
                return true;
            }
            releaseNode();
        }
        local[lock].unlock();
        return false;
    }

    @Override
    public void release(int lock) {
        check(lock);
        if (!local[lock].isHeldByCurrentThread()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " is not held by this thread");
        }
        locks[lock].release();
        releaseNode();
        local[lock].unlock();
    }

    @Override
    public int holder(int lock) {
        check(lock);
        return locks[lock].holder();
    }

    @Override
    public void close() {
        for (int i = 0; i < locks.length; i++) {
            if (local[i].isHeldByCurrentThread()) {
                release(i);
            }
        }
        region.close();
        fabric.untrack(this);
    }
}
