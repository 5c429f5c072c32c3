package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.cluster.CasLock;

import java.time.Duration;

/**
 * {@link LockKind#CAS}: the remote compare-and-swap lock ({@link CasLock}), a word per lock in the memory of
 * the set's home (the node that allocated it). The word names the holding process, so processes of one node
 * need no node mutex; each lock also records which thread of this process holds it (its CAS already excludes
 * the other threads).
 */
final class CasLockSet implements ClusterLockSet {
    /** A timeout that never expires; CasLock compares deadlines by difference, so no overflow. */
    private static final long FOREVER_NANOS = Long.MAX_VALUE;
    private final Fabric fabric;
    private final Region region;
    private final CasLock[] locks;

    private CasLockSet(Fabric fabric, Region region, RemoteMapping home, int count) {
        this.fabric = fabric;
        this.region = region;
        this.locks = new CasLock[count];
        for (int i = 0; i < count; i++) {
            locks[i] = new CasLock(home.window(), i, fabric.nodeId(), fabric.context().nodeLocal().pid(),
                    fabric.context().backend().transmitWriteCombining(), fabric.context().cluster().transmitShadowed(),
                    fabric.context().backend());
        }
    }

    /** The set under {@code key} (created, homed here, or joined); its region is closed again when the set cannot be made. */
    static CasLockSet open(Fabric fabric, long key, int count) {
        Region region = fabric.allocateLockRegion(key, count, CasLock.setSize(count), LockKind.CAS);
        try {
            int homeNode = region.home();
            if (homeNode == fabric.nodeId()) { // the home grants atomics on the words, and takes the same path to them
                region.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
            }
            return new CasLockSet(fabric, region, region.attachRemote(homeNode), count);
        } catch (RuntimeException e) {
            region.close();
            throw e;
        }
    }

    @Override
    public LockKind kind() {
        return LockKind.CAS;
    }

    @Override
    public int size() {
        return locks.length;
    }

    /** The set's region (its pages, its home). */
    Region region() {
        return region;
    }

    /**
     * Lock {@code lock}: checked against the array it indexes, so the JIT drops the array's own bounds check
     * (the uncontended path must stay small enough to inline into callers).
     */
    private CasLock lock(int lock) {
        if (lock < 0 || lock >= locks.length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " out of range 0.." + (locks.length - 1));
        }
        return locks[lock];
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
        CasLock l = lock(lock);
        long me = Thread.currentThread().threadId();
        if (l.heldByThread(me)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " is already held by this thread");
        }
        l.acquire(timeoutNanos);
        l.holdingThread(me);
    }

    @Override
    public boolean tryAcquire(int lock) {
        CasLock l = lock(lock);
        long me = Thread.currentThread().threadId();
        if (!l.heldByThread(me) && l.tryAcquire()) {
            l.holdingThread(me);
            return true;
        }
        return false;
    }

    @Override
    public void release(int lock) {
        CasLock l = lock(lock);
        if (!l.heldByThread(Thread.currentThread().threadId())) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "lock " + lock + " is not held by this thread");
        }
        l.release();
    }

    @Override
    public int holder(int lock) {
        return lock(lock).holder();
    }

    @Override
    public void close() {
        long me = Thread.currentThread().threadId();
        for (int i = 0; i < locks.length; i++) {
            if (locks[i].heldByThread(me)) {
                release(i);
            }
        }
        region.close();
        fabric.untrack(this);
    }
}
