package dev.memchan.internal.cluster;

/**
 * The cluster-lock bids of nodes that are joining. A node bids for the cluster lock to join, before its
 * member slot says it is alive, so the membership's liveness rule cannot judge such a bid: the slot is
 * ABSENT for a joiner at work and for one that died bidding alike. Clearing it at first sight (as a
 * dead node's) would take the lock from a live joiner under load: its bid vanishes after it has come
 * back, or before, and the joiner spins until it gives up. So a joiner's bid is cleared only once the
 * same bid has stood for the bound: a joiner that died bidding or holding the lock still frees it, a
 * live one never loses it while it works within the bound.
 * <p>
 * One instance per cluster lock; the callers (a joining thread, a bidder whose attempt timed out) may
 * race, hence synchronized.
 */
final class JoiningBids {
    private final long[] bid;
    private final long[] since;

    JoiningBids(int nodes) {
        this.bid = new long[nodes];
        this.since = new long[nodes];
    }

    /**
     * Whether node {@code n}'s bid, seen now as {@code value} (0: none), has stood unchanged for longer
     * than {@code boundNanos}; a new or changed bid starts its time at {@code now}.
     */
    synchronized boolean stale(int n, long value, long now, long boundNanos) {
        if (value == 0 || value != bid[n]) {
            bid[n] = value;
            since[n] = now;
            return false;
        }
        return now - since[n] > boundNanos;
    }
}
