package dev.memchan;

/** The algorithm behind a {@link ClusterLockSet} (docs/architecture.md, "Two cluster locks"). */
public enum LockKind {
    /**
     * The Memory Channel lock algorithm (seed 000): a row of per-node bids in a region every user maps
     * broadcast + local copy and receive. No home: the set lives while any user does.
     */
    BID,
    /**
     * A remote compare-and-swap word per lock in the memory of the set's home (the node that allocated
     * it): one remote atomic per uncontended acquisition, but the set dies with its home (later
     * operations fail with PERMISSION once the home no longer grants atomics).
     */
    CAS
}
