package dev.memchan;

import java.time.Duration;

/**
 * A set of cluster-wide locks (imc_lkalloc / imc_lkacquire / imc_lkrelease), from
 * {@link Fabric#lockSet(long, int, LockKind)}. One class per algorithm ({@link LockKind}):
 * <ul>
 *   <li>{@link LockKind#BID}: the Memory Channel bid lock ({@code BidLockSet}): a region mapped broadcast +
 *       local copy and receive by every user, one row of per-node bids per lock;</li>
 *   <li>{@link LockKind#CAS}: the remote compare-and-swap lock ({@code CasLockSet}): a word per lock in the
 *       home's memory.</li>
 * </ul>
 * Locks held by a node that dies are released by the surviving nodes' cluster service. Threads of one
 * process may share a set; a lock is held by one thread, which must be the one to release it.
 */
public sealed interface ClusterLockSet extends AutoCloseable permits BidLockSet, CasLockSet {

    LockKind kind();

    /** The number of locks in the set. */
    int size();

    /** Blocks until lock {@code lock} is held by this thread. */
    void acquire(int lock);

    /** Acquires within {@code timeout} or throws TIMEOUT. */
    void acquire(int lock, Duration timeout);

    /** One attempt; true when the lock is now held by this thread. */
    boolean tryAcquire(int lock);

    /** Releases a lock held by this thread; its protected stores are fenced before the release. */
    void release(int lock);

    /** The node holding lock {@code lock}, or -1 (a racing bid also shows as -1). */
    int holder(int lock);

    /** Releases locks still held by this process, detaches and deallocates. */
    @Override
    void close();
}
