package dev.memchan.internal.cluster;

/** One cluster lock as a node takes it: the bid lock ({@link BidLock}) or the remote compare-and-swap lock ({@link CasLock}). */
public interface NodeLock {
    /** One attempt; true when the lock is now held by this node. Never blocks for long. */
    boolean tryAcquire();

    /** Acquires, backing off on conflict; throws TIMEOUT after {@code timeoutNanos}. */
    void acquire(long timeoutNanos);

    /** Releases the lock this node holds; the protected stores are ordered before the release. */
    void release();

    /** The node holding the lock, or -1 (none, or a race the algorithm cannot name). */
    int holder();
}
