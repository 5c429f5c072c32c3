package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * A region read and updated at its home node ({@link Region#attachRemote}): remote loads (Memory
 * Channel 2's remote read), remote copy into a local segment with a completion, and remote atomics on
 * aligned 64-bit words (Telegraphos: fetch-and-add, compare-and-swap, fetch-and-store), each executed
 * at the home and serialized there against every other atomic on the word. Offsets are bytes from the
 * start of the mapping.
 *
 * <p>The home must grant the access ({@link RemoteAccess}); otherwise the operation throws a
 * {@link MemchanException} of kind PERMISSION, changes nothing, and the home counts it in its
 * REMOTE_REFUSED register. A misaligned word is refused the same way. The home's own CPU takes the same
 * path for words it updates atomically: map the region remotely at itself.
 *
 * <p>Ordering: every operation is performed after this thread's earlier stores to the home (rule 1);
 * the atomics have full-fence semantics (as {@link VarHandle#getAndAdd}); a remote load has acquire
 * semantics: after it returns a value the home stored after a fence, it returns that value or a newer
 * one, never an older one or a torn word.
 */
public final class RemoteMapping implements AutoCloseable {
    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(RemoteMapping.class, "completedFetches", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Region region;
    private final RemoteWindow window;
    private final long offsetInRegion;
    private long issuedFetches;
    @SuppressWarnings("unused") // through COMPLETED
    private volatile long completedFetches;

    RemoteMapping(Region region, RemoteWindow window, long offsetInRegion) {
        this.region = region;
        this.window = window;
        this.offsetInRegion = offsetInRegion;
    }

    public Region region() {
        return region;
    }

    /** The node whose memory this mapping reads and updates. */
    public int home() {
        return window.home();
    }

    /** Bytes mapped. */
    public long length() {
        return (long) window.pageCount() * region.fabric().pageSize();
    }

    /** Offset of this mapping in its region. */
    public long offsetInRegion() {
        return offsetInRegion;
    }

    /** The backend's window (for the library's CAS lock). */
    RemoteWindow window() {
        return window;
    }

    /** Blocking remote load of the aligned word at {@code offset}, with acquire semantics (needs {@link RemoteAccess#READ}). */
    public long getLongAcquire(long offset) {
        return window.getLongAcquire(offset);
    }

    /**
     * Remote copy (needs {@link RemoteAccess#READ} on every page it touches): starts copying {@code length}
     * bytes from {@code offset} into {@code dst} at {@code dstOffset} and returns a fetch number for
     * {@link #isFetched} / {@link #awaitFetched}. {@code dst} must not be read before the fetch completes.
     * On the soft fabric and ivshmem there is no copy engine: the calling CPU copies, and the fetch has
     * completed when this returns.
     */
    public synchronized long fetch(long offset, MemorySegment dst, long dstOffset, long length) {
        window.copyTo(offset, dst, dstOffset, length);
        long n = ++issuedFetches;
        COMPLETED.setRelease(this, n);
        return n;
    }

    /** True when fetch number {@code fetch} (and every earlier one) has completed; acquire: {@code dst} may then be read. */
    public boolean isFetched(long fetch) {
        return (long) COMPLETED.getAcquire(this) >= fetch;
    }

    /** Waits for fetch number {@code fetch}; throws TIMEOUT after {@code timeout}. */
    public void awaitFetched(long fetch, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isFetched(fetch)) {
            if (System.nanoTime() - deadline > 0) {
                throw new MemchanException(Kind.TIMEOUT, "remote fetch " + fetch + " not completed within " + timeout.toMillis() + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Remote fetch-and-add on the aligned word at {@code offset}; returns the old value (needs {@link RemoteAccess#ATOMIC}). */
    public long getAndAddLong(long offset, long delta) {
        return window.getAndAdd(offset, delta);
    }

    /** Remote compare-and-swap; returns the old value (the swap happened when it equals {@code expected}). */
    public long compareAndExchangeLong(long offset, long expected, long value) {
        return window.compareAndExchange(offset, expected, value);
    }

    /** Remote swap (fetch-and-store); returns the old value. */
    public long getAndSetLong(long offset, long value) {
        return window.getAndSet(offset, value);
    }

    @Override
    public void close() {
        window.close();
        region.mappingClosed(this, Region.REMOTE);
    }
}
