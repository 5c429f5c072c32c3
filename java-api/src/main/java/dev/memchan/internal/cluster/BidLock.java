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
 */
public final class BidLock {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final TransmitStores tx;
    private final MemorySegment rx;
    private final long row;
    private final int nodes;
    private final int me;
    private final long bid;
    private final boolean writeCombining;

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

    /** One bid; true when the lock is now held. Never blocks for long. */
    public boolean tryAcquire() {
        if (othersBidding()) {
            return false;
        }
        tx.setLongRelease(row + SystemPagesDescriptor.bidInRow(me), bid);
        VarHandle.fullFence(); // the bid must leave before we read the others (x86 may pass loads over stores)
        long spins = 0;
        while ((long) LONG.getVolatile(rx, row + SystemPagesDescriptor.bidInRow(me)) != bid) { // local copy: our bid has been ordered
            Thread.onSpinWait();
            if (++spins > 100_000_000L) {
                tx.setLongVolatile(row + SystemPagesDescriptor.bidInRow(me), 0L);
                throw new MemchanException(Kind.DEVICE_ERROR, "lock bid never came back through the local copy: "
                        + "check the page's PCT (broadcast + local copy) and the link, and whether the cluster judged "
                        + "this node dead (survivors clear a dead node's bids; this process's cluster agent reports "
                        + "late heartbeats on stderr; FabricOptions.withTiming sets the failure timeout)");
            }
        }
        if (!othersBidding()) {
            return true;
        }
        tx.setLongVolatile(row + SystemPagesDescriptor.bidInRow(me), 0L);
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
     * grants are shadows, every grant of the process is pushed first (the protected stores may be in any).
     */
    public void release() {
        if (tx.shadowed()) {
            tx.pushAllGrants();
        } else if (writeCombining) {
            VarHandle.fullFence();
        }
        tx.setLongRelease(row + SystemPagesDescriptor.bidInRow(me), 0L);
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
