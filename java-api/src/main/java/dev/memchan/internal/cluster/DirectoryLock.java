package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeMutex;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The directory lock: the Memory Channel bid lock ({@link BidLock}) on the lock page's row, which guards
 * the region directory and the membership slots (the users' locks are {@code ClusterLockSet}s). The node
 * has one bid slot: a Java lock lets one thread of the process, then the node's cluster mutex
 * ({@link NodeMutex}) one process of the node, bid in it at a time; a bidder that stays in the way is
 * cleared when the membership's liveness rule says its node is dead, and a joining node's bid (its slot
 * not yet a member) once it has stood for the joiner's bound ({@link JoiningBids}).
 */
public final class DirectoryLock {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final long ATTEMPT_NANOS = 2_000_000_000L;
    private static final int ATTEMPTS = 15;
    private static final Duration SWEEP_TIMEOUT = Duration.ofSeconds(1);

    private final Backend backend;
    private final TransmitStores tx;
    private final MemorySegment rx;
    private final int pageSize;
    private final int nodes;
    private final int me;
    private final BidLock bids;
    private final IntPredicate deadNow;
    private final IntPredicate member;
    private final LongSupplier joinerBoundNanos;
    private final JoiningBids joining;
    private final ReentrantLock localMutex = new ReentrantLock();
    private final NodeLocal local;

    /**
     * @param local   the node's local table: its cluster mutex lets one process of the node bid at a time
     * @param deadNow whether node n, a member, is dead, observed now (it may wait up to the failure timeout)
     * @param member  whether node n's member slot is a member's (not ABSENT): else a bid of it is a joiner's
     * @param joinerBoundNanos how long a joiner's bid may stand before it is taken for a dead joiner's
     */
    public DirectoryLock(Backend backend, TransmitStores tx, MemorySegment rx, boolean writeCombining, NodeLocal local,
                       IntPredicate deadNow, IntPredicate member, LongSupplier joinerBoundNanos) {
        this.local = local;
        this.backend = backend;
        this.tx = tx;
        this.rx = rx;
        this.pageSize = backend.pageSize();
        this.nodes = backend.maxNodes();
        this.me = backend.nodeId();
        this.deadNow = deadNow;
        this.member = member;
        this.joinerBoundNanos = joinerBoundNanos;
        this.joining = new JoiningBids(nodes);
        this.bids = new BidLock(tx, rx, row(), nodes, me, backend.incarnation(), writeCombining);
    }

    private long row() {
        return SystemPagesDescriptor.lockBid(pageSize, 0);
    }

    private volatile MemchanException fence;

    /** From now on {@link #with} throws {@code why}: this node was declared dead while this process lived. */
    void fence(MemchanException why) {
        fence = why;
    }

    /**
     * Runs {@code body} holding the cluster lock; its writes are swept out before the lock is released. The
     * lock is released whatever the sweep's acknowledge barrier does. A barrier that times out (a node that
     * cannot acknowledge now: a stopped or cut one) does not fail the call: the body's stores were sent before
     * the release and in its order, so whoever takes the lock next sees them. Any other failure of the barrier
     * is thrown after the release (added to the body's own exception when the body threw).
     */
    public <T> T with(Supplier<T> body) {
        MemchanException f = fence;
        if (f != null) {
            throw new MemchanException(f.kind(), f.getMessage());
        }
        localMutex.lock(); // one bidder per node: our bid slot is the node's; first among our threads,
        try {
            // then among the node's processes (a dead holder's bid is ours to bid over: same node, same slot)
            NodeMutex.acquire(local.segment(), local.clusterMutex(), local.pid(), () -> { });
            try {
                acquire();
                T result;
                try {
                    result = body.get();
                } catch (RuntimeException | Error e) {
                    sweepAndRelease(e);
                    throw e;
                }
                sweepAndRelease(null);
                return result;
            } finally {
                NodeMutex.release(local.segment(), local.clusterMutex(), local.pid());
            }
        } finally {
            localMutex.unlock();
        }
    }

    /** The barrier that sweeps the holder's writes out, then the release, which happens even when the barrier throws. */
    private void sweepAndRelease(Throwable bodyFailure) {
        RuntimeException failure = null;
        try {
            backend.ackBarrier(SWEEP_TIMEOUT);
        } catch (MemchanException e) {
            if (e.kind() != Kind.TIMEOUT) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            bids.release();
        }
        if (failure != null) {
            if (bodyFailure == null) {
                throw failure;
            }
            bodyFailure.addSuppressed(failure);
        }
    }

    public boolean heldByThisThread() {
        return localMutex.isHeldByCurrentThread();
    }

    private void acquire() {
        long start = System.nanoTime();
        for (int attempt = 0; ; attempt++) {
            try {
                bids.acquire(ATTEMPT_NANOS);
                return;
            } catch (MemchanException e) {
                if (e.kind() != Kind.TIMEOUT || attempt >= ATTEMPTS) {
                    // what the row shows says which failure this was: one bid is a holder that stays,
                    // several are bidders in each other's way, none is a lock that kept changing hands
                    throw new MemchanException(Kind.TIMEOUT, "cluster lock of " + backend.location()
                            + " not acquired in " + (attempt + 1) + " attempts over "
                            + (System.nanoTime() - start) / 1_000_000 + " ms: held by node "
                            + BidLock.holder(rx, row(), nodes) + ", bids now from nodes "
                            + BidLock.bidders(rx, row(), nodes), e);
                }
                clearBidsOfDeadBidders();
            }
        }
    }

    /**
     * A node that died holding (or bidding for) the cluster lock must not block everyone: a member's bid
     * goes when the liveness rule says the node is dead, a joiner's when it has stood for the bound.
     */
    public void clearBidsOfDeadBidders() {
        for (int n = 0; n < nodes; n++) {
            long bid = n == me ? 0 : (long) LONG.getVolatile(rx, SystemPagesDescriptor.lockBid(pageSize, n));
            if (bid != 0 && !member.test(n)) {
                if (joining.stale(n, bid, System.nanoTime(), joinerBoundNanos.getAsLong())) {
                    clearBid(n);
                }
            } else {
                joining.stale(n, 0, 0, 0);
                if (bid != 0 && deadNow.test(n)) {
                    clearBid(n);
                }
            }
        }
    }

    /** Clears node {@code n}'s bid (it is dead). */
    public void clearBid(int n) {
        BidLock.clearBid(tx, row(), n);
    }
}
