package dev.memchan.internal.soft;

import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricLayout;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The page access counters of a soft fabric file (layout version 3, docs/soft-fabric.md "Page access
 * counters"): a home's count of a page is its own counter word, which requesters without a stripe
 * increment atomically, plus every counter stripe's count of the page, minus the base the home stored
 * when it last cleared them (all modulo 2^32).
 *
 * <p>A counter stripe has one writer at a time, a thread that claimed it in the header's STRIPE_OWNERS
 * with a compare-and-set, so it counts with a plain load and a release store: no locked instruction on
 * the path of a remote atomic. A count is never double-counted (one writer, one store per served access)
 * and never lost with a batch (the store follows its access, nothing is held back); what a writer
 * killed by SIGKILL had stored stays in its stripe and is summed like the rest, and the next claimant
 * of the stripe counts on from it. The one window is the writer dying between the access and its count
 * store, a few instructions, as with a locked add in the home's word.
 *
 * <p>One instance per backend (node) of a process: a thread's stripe is claimed on its first count and
 * given back when the backend closes; a stripe whose owner died (same host, pid gone) is taken over.
 * When every stripe is taken, a thread counts with an atomic add in the home's word: still exact.
 */
final class CounterStripes {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    /** Serial of the next thread to claim a stripe in this process: the owner word's THREAD field. */
    private static final AtomicInteger THREAD_SERIALS = new AtomicInteger();
    private static final ThreadLocal<Integer> THREAD_SERIAL = ThreadLocal.withInitial(CounterStripes::nextThreadSerial);
    static final long NO_STRIPE = -1;
    /** No thread's claim: the first count of any thread looks its claim up. */
    static final Claim NO_CLAIM = new Claim(null, NO_STRIPE);

    private final MemorySegment control;
    private final SoftFabricLayout layout;
    private final int node;
    private final int pid = Posix.getpid();
    private final List<Long> claimed = new ArrayList<>(); // owner-table offsets this instance holds
    private final ThreadLocal<Claim> mine = ThreadLocal.withInitial(() -> new Claim(Thread.currentThread(), claim()));
    /** The last thread's claim: a lock loop in one thread skips the ThreadLocal lookup (immutable, so a racy read is safe). */
    private Claim last = NO_CLAIM;
    private boolean closed;

    /** A thread's stripe (offset of its first entry), or NO_STRIPE. */
    record Claim(Thread thread, long stripe) {
    }

    CounterStripes(MemorySegment control, SoftFabricLayout layout, int node) {
        this.control = control;
        this.layout = layout;
        this.node = node;
    }

    private static int nextThreadSerial() {
        int serial = THREAD_SERIALS.incrementAndGet() & (int) (SF_STRIPE_OWNER_THREAD_MASK >>> SF_STRIPE_OWNER_THREAD_SHIFT);
        return serial == 0 ? nextThreadSerial() : serial;
    }

    /** The owner word of the calling thread on {@code node}. */
    static long ownerWord(int pid, int node, int threadSerial) {
        return Integer.toUnsignedLong(pid) << SF_STRIPE_OWNER_PID_SHIFT
                | (node + 1L) << SF_STRIPE_OWNER_NODE_SHIFT
                | (long) threadSerial << SF_STRIPE_OWNER_THREAD_SHIFT;
    }

    /**
     * Counts one access of {@code counter} (SF_PAGE_COUNTER_READS or _ATOMICS) to {@code page} served by
     * {@code home}, in the calling thread's stripe, or atomically in the home's word without one.
     */
    void count(int home, int page, int counter) {
        Claim c = last;
        if (c.thread != Thread.currentThread()) {
            c = claimOfThisThread();
        }
        if (c.stripe != NO_STRIPE) {
            countInStripe(control, c.stripe + (long) SF_STRIPE_ENTRY_SIZE * page + counter);
        } else {
            countAtTheHome(home, page, counter);
        }
    }

    /** The stripe's single writer counts one access in the entry at {@code at}: a plain load and a release store, no locked add. */
    static void countInStripe(MemorySegment control, long at) {
        INT.setRelease(control, at, (int) INT.get(control, at) + 1);
    }

    /** A thread without a stripe; out of line, so that the striped count stays small enough to inline into its callers. */
    void countAtTheHome(int home, int page, int counter) {
        INT.getAndAdd(control, layout.pageCounters(home, page) + counter, 1);
    }

    /** Another thread than the last one counts: its claim, made on its first count. */
    Claim claimOfThisThread() {
        Claim c = mine.get();
        last = c;
        return c;
    }

    /** Offset of the claimed stripe's first entry, or NO_STRIPE. */
    private synchronized long claim() {
        if (closed) {
            return NO_STRIPE;
        }
        long want = ownerWord(pid, node, THREAD_SERIAL.get());
        long myHost = HostIdentity.hostId();
        for (int s = 0; s < SF_COUNTER_STRIPES; s++) {
            long at = SoftFabricLayout.stripeOwner(s);
            long owner = (long) LONG.getVolatile(control, at);
            if ((owner == 0 || ownerIsDead(owner, myHost)) && LONG.compareAndSet(control, at, owner, want)) {
                claimed.add(at);
                return layout.stripeEntry(s, 0);
            }
        }
        return NO_STRIPE;
    }

    /** A stripe owner of this host whose process is gone (another host's owner is never judged). */
    private boolean ownerIsDead(long owner, long myHost) {
        int ownerNode = (int) ((owner & SF_STRIPE_OWNER_NODE_MASK) >>> SF_STRIPE_OWNER_NODE_SHIFT) - 1;
        if (ownerNode < 0 || ownerNode >= layout.maxNodes()
                || (long) LONG.getVolatile(control, layout.nodeBlock(ownerNode) + SF_NODE_HOST_ID) != myHost) {
            return false;
        }
        int ownerPid = (int) ((owner & SF_STRIPE_OWNER_PID_MASK) >>> SF_STRIPE_OWNER_PID_SHIFT);
        return ownerPid != pid && !Posix.processExists(ownerPid);
    }

    /** Gives back every stripe this instance claimed; its threads count in the home's words from now on. */
    synchronized void close() {
        closed = true;
        for (long at : claimed) {
            long owner = (long) LONG.getVolatile(control, at);
            if (((owner & SF_STRIPE_OWNER_PID_MASK) >>> SF_STRIPE_OWNER_PID_SHIFT) == Integer.toUnsignedLong(pid)) {
                LONG.compareAndSet(control, at, owner, 0L);
            }
        }
        claimed.clear();
    }

    /** Every stripe's count of {@code counter} for {@code page}, summed (modulo 2^32). */
    static int stripeSum(MemorySegment control, SoftFabricLayout layout, int page, int counter) {
        int sum = 0;
        for (int s = 0; s < SF_COUNTER_STRIPES; s++) {
            sum += (int) INT.getVolatile(control, layout.stripeEntry(s, page) + counter);
        }
        return sum;
    }

    private static int baseOf(int counter) {
        return counter == SF_PAGE_COUNTER_READS ? SF_PAGE_COUNTER_READS_BASE : SF_PAGE_COUNTER_ATOMICS_BASE;
    }

    /** {@code home}'s count of {@code counter} for {@code page}: its word + the stripes' counts - its base. */
    static int read(MemorySegment control, SoftFabricLayout layout, int home, int page, int counter) {
        long slot = layout.pageCounters(home, page);
        return (int) INT.getVolatile(control, slot + counter) + stripeSum(control, layout, page, counter)
                - (int) INT.getVolatile(control, slot + baseOf(counter));
    }

    /**
     * With the home's word just incremented atomically to {@code word}, the home's count: exact for a page
     * every requester counts in the home's word (COUNT_IRQ), where the stripes' counts stand still.
     */
    static int countAfterAtomicIncrement(MemorySegment control, SoftFabricLayout layout, int home, int page, int counter,
                                         int word) {
        return word + stripeSum(control, layout, page, counter)
                - (int) INT.getVolatile(control, layout.pageCounters(home, page) + baseOf(counter));
    }

    /** The home clears its counters of {@code page}: its words to 0, the stripes' sums into its bases. */
    static void clear(MemorySegment control, SoftFabricLayout layout, int home, int page) {
        clearOne(control, layout, layout.pageCounters(home, page), page, SF_PAGE_COUNTER_READS);
        clearOne(control, layout, layout.pageCounters(home, page), page, SF_PAGE_COUNTER_ATOMICS);
    }

    private static void clearOne(MemorySegment control, SoftFabricLayout layout, long slot, int page, int counter) {
        INT.setVolatile(control, slot + baseOf(counter), stripeSum(control, layout, page, counter));
        INT.setVolatile(control, slot + counter, 0);
    }
}
