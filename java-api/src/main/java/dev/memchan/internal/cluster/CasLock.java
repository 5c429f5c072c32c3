package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;
import dev.memchan.spi.RemoteWindow;
import dev.memchan.spi.RemoteWord;

import java.lang.invoke.VarHandle;

/**
 * A cluster lock on a remote compare-and-swap (Telegraphos; RDMA verbs' atomic CAS): one u64 word in
 * the memory of the lock set's home node, 0 when free, else the holding process: its pid and its node
 * ID + 1. Acquire: CAS 0 -> mine at the home, backing off like the bid lock on conflict; release: CAS
 * mine -> 0. One remote atomic per uncontended acquisition instead of the bid lock's store, fence and
 * wait for the local copy; and since the word names the process, processes of one node need no node
 * mutex in front of it. The price is the home: the words live in one node's memory, so the lock set
 * dies with it.
 *
 * <pre>
 *  lock set pages at the home:  | word 0 | pad to SYS_CAS_LOCK_SIZE | word 1 | ... |
 *  word:  63        32 31       8 7            0
 *        +------------+----------+--------------+
 *        |    pid     |    0     |  node + 1    |      0: free
 *        +------------+----------+--------------+
 * </pre>
 * Only this class reads or writes the word (the C side and the RTL never see a CAS lock).
 */
public final class CasLock {
    private final RemoteWindow home;
    private final long word;
    /** The word at the home, taken once: each CAS skips the window's offset checks. */
    private final RemoteWord lockWord;
    private final long mine;
    private final boolean writeCombining;
    private final boolean shadowed;
    private final Backend backend;
    /**
     * {@link Thread#threadId()} of the thread of this process holding the lock, 0 when none (ids are positive):
     * kept by the lock set, to refuse a second acquire or a release by another thread. Plain: a thread only
     * compares it with its own id, and a thread always reads its own last write or a later one.
     */
    private long holdingThread;

    /**
     * @param writeCombining the holder's protected stores may sit in write-combining buffers: drain them with a
     *                       real fence before the release (the remote atomic itself is ordered behind earlier
     *                       stores to the home only)
     * @param shadowed       {@code backend}'s transmit grants are shadows: the release pushes them all first
     */
    public CasLock(RemoteWindow home, int lock, int me, int pid, boolean writeCombining, boolean shadowed, Backend backend) {
        this.home = home;
        this.word = SystemPagesDescriptor.casLockWord(lock);
        this.lockWord = home.word(word);
        this.mine = value(me, pid);
        this.writeCombining = writeCombining;
        this.shadowed = shadowed;
        this.backend = backend;
    }

    private static final long NODE_MASK = 0xFF;
    private static final int PID_SHIFT = 32;

    /** The word's value while process {@code pid} of {@code node} holds the lock. */
    static long value(int node, int pid) {
        return (long) pid << PID_SHIFT | (node + 1L);
    }

    static int holderNode(long value) {
        return value == 0 ? -1 : (int) (value & NODE_MASK) - 1;
    }

    static int holderPid(long value) {
        return (int) (value >>> PID_SHIFT);
    }

    /** Bytes of a CAS lock set of {@code locks} locks. */
    public static long setSize(int locks) {
        return SystemPagesDescriptor.casLockWord(locks);
    }

    public boolean heldByThread(long threadId) {
        return holdingThread == threadId;
    }

    /** Records the holding thread of this process after an acquire ({@link #release} clears it). */
    public void holdingThread(long threadId) {
        holdingThread = threadId;
    }

    /** One attempt; true when the lock is now held by this process. Never blocks for long. */
    public boolean tryAcquire() {
        return lockWord.compareAndExchange(0L, mine) == 0L;
    }

    /** Acquires, backing off on conflict; throws TIMEOUT after {@code timeoutNanos}. */
    public void acquire(long timeoutNanos) {
        if (!tryAcquire()) { // uncontended: no clock read (a VM's clock source may cost more than the CAS)
            acquireContended(timeoutNanos);
        }
    }

    /**
     * Out of line: inlined, this loop's second copy of the remote-atomic path made the uncontended acquire's
     * compiled code too big for the JIT to inline into its callers.
     */
    private void acquireContended(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int attempt = 0;
        while (!tryAcquire()) {
            BidLock.backOff(attempt++);
            if (System.nanoTime() - deadline > 0) {
                throw new MemchanException(Kind.TIMEOUT, "lock not acquired within " + timeoutNanos / 1_000_000 + " ms");
            }
        }
    }

    /**
     * Releases the word and forgets the holding thread: after the CAS (a store ahead of a locked instruction must
     * drain first, and a store into a shadow must be pushed first), and also when the word was no longer this
     * process's.
     */
    public void release() {
        if (shadowed) {
            backend.pushAllGrants();
        } else if (writeCombining) {
            VarHandle.fullFence();
        }
        long was = lockWord.compareAndExchange(mine, 0L);
        holdingThread = 0;
        if (was != mine) {
            takenFromThisProcess(was);
        }
    }

    private void takenFromThisProcess(long was) {
        throw new MemchanException(Kind.DEVICE_ERROR, "CAS lock word at the home holds " + was + ", not this node's "
                + mine + ": the lock was taken from this node (declared dead?)");
    }

    /** The node holding the lock, or -1 (none, or a race the algorithm cannot name). */
    public int holder() {
        return holderNode(home.getLongAcquire(word));
    }

    /**
     * Clears the hold of node {@code n} (a dead node, or a node leaving the set) or, with {@code pid} != 0,
     * of that process of node {@code n} (a dead process) on every lock of the CAS lock set {@code e}.
     */
    public static void clearHolder(Backend backend, DirectoryEntry e, int n, int pid) {
        try (RemoteWindow w = backend.openRemote(e.home(), e.firstPage(), e.pageCount())) {
            for (int l = 0; l < e.lockCount(); l++) {
                long off = SystemPagesDescriptor.casLockWord(l);
                long v = w.getLongAcquire(off);
                if (holderNode(v) == n && (pid == 0 || holderPid(v) == pid)) {
                    w.compareAndExchange(off, v, 0L); // fails harmlessly if it changed meanwhile: then it is not theirs
                }
            }
        } catch (MemchanException ex) {
            if (ex.kind() != Kind.PERMISSION) {
                throw ex;
            }
            // the home no longer grants atomics (it left or died): the set's words went with it
        }
    }
}
