package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;

import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The Memory Channel lock algorithm (seed 000) on one row of bids: a u64 per node, in a page every
 * node maps for transmit (broadcast + local copy) and receive.
 *
 * <pre>
 *  row:  +---------+---------+-----+-----------+
 *        | bid[0]  | bid[1]  | ... | bid[N-1]  |   bid = bidder's incarnation, 0 = no bid
 *        +---------+---------+-----+-----------+
 * </pre>
 *
 * To acquire: wait until no other bid is set, store our bid, fence, wait until our own bid comes
 * back through the local copy (it has passed the point of global order, so every bid stored before
 * it is visible too), then read the row. Only our bid: the lock is ours. Otherwise withdraw and back
 * off for a random, growing time. The ordering rules make at most one node see itself alone.
 *
 * The bid has the same value on every attempt, so "our bid came back" means this attempt's bid only
 * when our slot read 0 before we stored it: a withdrawal (ours or that of another process of this
 * node, which shares the slot) may still be on its way while the local copy shows the earlier bid. A
 * bid is therefore made only on a slot whose local copy reads 0; a slot that shows a bid of ours is
 * withdrawn first. Where each process sends on its own (shadow grants: ucx://, one sender per
 * process, not one adapter per node), a release also waits for its withdrawal to come back before the
 * node's next process may bid, so that withdrawal cannot land after that process's bid.
 */
public final class BidLock {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    /** Back-off steps a release waits for its withdrawal's copy: about 5 s once each step parks up to 1 ms. */
    private static final int WITHDRAWAL_WAITS = 10_000;

    private final TransmitStores tx;
    private final MemorySegment rx;
    private final long row;
    private final int nodes;
    private final int me;
    private final long bid;
    private final boolean writeCombining;
    /** A withdrawal of ours is on its way: our slot's non-zero local copy is an earlier bid. */
    private boolean withdrawing;

    /**
     * @param tx             the bid row's transmit grant: each bid and withdrawal is pushed where it is a shadow
     * @param writeCombining the transmit mapping is write-combining memory: the release must then drain
     *                       the protected stores with a real fence before the bid is withdrawn
     */
    public BidLock(TransmitStores tx, MemorySegment rx, long rowOffset, int nodes, int me, long bid, boolean writeCombining) {
        if (bid == 0) {
            throw new IllegalArgumentException("bid must be non-zero");
        }
        this.tx = tx;
        this.rx = rx;
        this.row = rowOffset;
        this.nodes = nodes;
        this.me = me;
        this.bid = bid;
        this.writeCombining = writeCombining;
    }

    /** Size of one row for {@code nodes} nodes. */
    public static long rowSize(int nodes) {
        return SystemPagesDescriptor.lockRowSize(nodes);
    }

    private boolean othersBidding() {
        for (int n = 0; n < nodes; n++) {
            if (n != me && (long) LONG.getVolatile(rx, row + SystemPagesDescriptor.bidInRow(n)) != 0) {
                return true;
            }
        }
        return false;
    }

    private long mine() {
        return (long) LONG.getVolatile(rx, row + SystemPagesDescriptor.bidInRow(me));
    }

    private void withdraw() {
        tx.setLongVolatile(row + SystemPagesDescriptor.bidInRow(me), 0L);
        withdrawing = true;
    }

    /** One bid; true when the lock is now held. Never blocks for long. */
    public boolean tryAcquire() {
        if (mine() != 0) { // an earlier bid's copy: this attempt's would be indistinguishable from it
            if (!withdrawing) {
                withdraw(); // a bid this object did not withdraw: a dead process's of this node, or a cleared one's
            }
            return false;
        }
        withdrawing = false;
        if (othersBidding()) {
            return false;
        }
        tx.setLongRelease(row + SystemPagesDescriptor.bidInRow(me), bid);
        VarHandle.fullFence(); // the bid must leave before we read the others (x86 may pass loads over stores)
        long spins = 0;
        while (mine() != bid) { // local copy: this attempt's bid has been ordered
            Thread.onSpinWait();
            if (++spins > 100_000_000L) {
                withdraw();
                throw new MemchanException(Kind.DEVICE_ERROR, "lock bid never came back through the local copy: "
                        + "check the page's PCT (broadcast + local copy) and the link, and whether the cluster judged "
                        + "this node dead (survivors clear a dead node's bids; this process's cluster agent reports "
                        + "late heartbeats on stderr; FabricOptions.withTiming sets the failure timeout)");
            }
        }
        if (!othersBidding()) {
            return true;
        }
        withdraw();
        return false;
    }

    /** Acquires, backing off on conflict; throws TIMEOUT after {@code timeoutNanos}. */
    public void acquire(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int attempt = 0;
        while (!tryAcquire()) {
            backOff(attempt++);
            if (System.nanoTime() - deadline > 0) {
                throw new MemchanException(Kind.TIMEOUT, "lock not acquired within " + timeoutNanos / 1_000_000 + " ms");
            }
        }
    }

    static void backOff(int attempt) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        if (attempt < 4) {
            for (int i = r.nextInt(32 << attempt); i > 0; i--) {
                Thread.onSpinWait();
            }
        } else if (attempt < 8) {
            Thread.yield(); // on few cores the holder may need this CPU
        } else {
            LockSupport.parkNanos(r.nextLong(1_000, 1_000L << Math.min(attempt - 6, 10)));
        }
    }

    /**
     * Releases: the protected stores must reach everyone before the bid's withdrawal. On write-back memory
     * x86-TSO keeps that order for a release store; write-combining memory needs a real fence first; where
     * grants are shadows, every grant of the process is pushed first (the protected stores may be in any),
     * and the withdrawal's copy is awaited (see the class comment).
     */
    public void release() {
        if (tx.shadowed()) {
            tx.pushAllGrants();
        } else if (writeCombining) {
            VarHandle.fullFence();
        }
        tx.setLongRelease(row + SystemPagesDescriptor.bidInRow(me), 0L);
        withdrawing = true;
        if (tx.shadowed()) {
            awaitWithdrawal();
        }
    }

    /**
     * Waits until our slot's local copy reads 0. A hub that stops answering makes the push fail, so the wait
     * is bounded by that; the bound here only keeps a lost copy from hanging the releaser (the node's next
     * bidder then withdraws again before it bids).
     */
    private void awaitWithdrawal() {
        for (int attempt = 0; mine() != 0 && attempt < WITHDRAWAL_WAITS; attempt++) {
            backOff(Math.min(attempt, 16));
        }
    }

    /** True when this node's bid is the only one (the lock is held by us). */
    public boolean heldByMe() {
        return (long) LONG.getVolatile(rx, row + SystemPagesDescriptor.bidInRow(me)) == bid && !othersBidding();
    }

    /** Clears a (dead) node's bid. */
    public static void clearBid(TransmitStores tx, long rowOffset, int node) {
        VarHandle.fullFence();
        tx.setLongVolatile(rowOffset + SystemPagesDescriptor.bidInRow(node), 0L);
    }

    /** The node holding the lock, or -1 (none, or a race the algorithm cannot name). */
    public int holder() {
        return holder(rx, row, nodes);
    }

    /** The nodes with a bid in a row, e.g. "[0, 2]" (for messages). */
    public static String bidders(MemorySegment rx, long rowOffset, int nodes) {
        StringBuilder b = new StringBuilder("[");
        for (int n = 0; n < nodes; n++) {
            if ((long) LONG.getVolatile(rx, rowOffset + SystemPagesDescriptor.bidInRow(n)) != 0) {
                b.append(b.length() > 1 ? ", " : "").append(n);
            }
        }
        return b.append(']').toString();
    }

    /** The node holding the only bid in a row, or -1. */
    public static int holder(MemorySegment rx, long rowOffset, int nodes) {
        int holder = -1;
        for (int n = 0; n < nodes; n++) {
            if ((long) LONG.getVolatile(rx, rowOffset + SystemPagesDescriptor.bidInRow(n)) != 0) {
                if (holder >= 0) {
                    return -1;
                }
                holder = n;
            }
        }
        return holder;
    }
}
