package dev.memchan.internal.soft;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.SoftFabricLayout;
import dev.memchan.spi.RemoteWindow;
import dev.memchan.spi.RemoteWord;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Remote read and atomics on the soft fabric: the home's page is the network page's one physical page,
 * so a remote read is a load of it and an atomic is a CPU atomic on it, serialized by the CPU against
 * every other atomic on the word (the home's own CPU included, when it uses this same path). What
 * the home's adapter would do around the access, the requester does in the home's node block: check
 * the home's receive PCT (READ_EN, ATOMIC_EN), count the access (in the calling thread's counter stripe, or
 * with an atomic add in the home's word on a page with COUNT_IRQ, raising PAGE_HOT when the count reaches
 * PAGE_CNT_THRESHOLD: see {@link CounterStripes}), count a refusal in REMOTE_REFUSED.
 */
final class SoftRemoteWindow implements RemoteWindow {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment control;
    private final SoftFabricLayout layout;
    private final int home;
    private final long homeRegs;
    /** The home's receive PCT entry and page counters of network page 0: per-access offsets are one multiply-add. */
    private final long rxPctBase;
    private final long countersBase;
    private final CounterStripes stripes;
    private final int firstPage;
    private final int count;
    private final int pageShift;
    private final Arena arena;
    private final MemorySegment data;
    /** The last offset an aligned word may start at: the hot bounds check reads no field of the segment. */
    private final long lastWord;
    private final Consumer<SoftRemoteWindow> release;

    SoftRemoteWindow(MemorySegment control, SoftFabricLayout layout, CounterStripes stripes, int home, int firstPage, int count,
                     Arena arena, MemorySegment data, Consumer<SoftRemoteWindow> release) {
        this.stripes = stripes;
        this.control = control;
        this.layout = layout;
        this.home = home;
        this.homeRegs = layout.nodeBlock(home);
        this.rxPctBase = layout.rxPct(home, 0);
        this.countersBase = layout.pageCounters(home, 0);
        this.firstPage = firstPage;
        this.count = count;
        this.pageShift = Integer.numberOfTrailingZeros(layout.pageSize());
        this.arena = arena;
        this.data = data;
        this.lastWord = data.byteSize() - Long.BYTES;
        this.release = release;
    }

    /**
     * Refuses, as the home does, unless every page of {@code firstPage..+count} has READ_EN or ATOMIC_EN
     * in {@code home}'s receive PCT: a region not homed where asked.
     */
    static void checkHomed(MemorySegment control, SoftFabricLayout layout, int home, int firstPage, int count) {
        for (int p = firstPage; p < firstPage + count; p++) {
            long entry = (long) LONG.getVolatile(control, layout.rxPct(home, p));
            if (!RxPct.readable(entry) && !RxPct.atomics(entry)) {
                INT.getAndAdd(control, layout.nodeBlock(home) + REG_REMOTE_REFUSED, 1);
                throw new MemchanException(Kind.PERMISSION, "node " + home + " grants neither remote read nor atomics on page "
                        + p + " (receive PCT " + RxPct.describe(entry) + "): it is not the home of these pages, or has not granted them");
            }
        }
    }

    Arena arena() {
        return arena;
    }

    @Override
    public int home() {
        return home;
    }

    @Override
    public int firstPage() {
        return firstPage;
    }

    @Override
    public int pageCount() {
        return count;
    }

    /**
     * Network page of an aligned word at {@code offset}: bounds are the requester's own check, alignment the home's.
     * The hot paths (this, {@link #granted}, {@link #served}) keep their refusals out of line, small enough to inline.
     */
    private int wordPage(long offset, String op) {
        if (offset < 0 || offset > lastWord || (offset & (Long.BYTES - 1)) != 0) {
            badWord(offset, op);
        }
        return firstPage + (int) (offset >>> pageShift);
    }

    private void badWord(long offset, String op) {
        if (offset < 0 || offset > data.byteSize() - Long.BYTES) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, op + " at offset " + offset + ": outside the remote mapping of "
                    + data.byteSize() + " bytes");
        }
        refuse(op + " at offset " + offset + " (page " + (firstPage + (int) (offset >>> pageShift)) + "): the word is not 8-byte aligned");
    }

    private void refuse(String why) {
        INT.getAndAdd(control, homeRegs + REG_REMOTE_REFUSED, 1);
        throw new MemchanException(Kind.PERMISSION, "node " + home + " refused a remote " + why);
    }

    private long rxPct(int page) {
        return (long) LONG.getVolatile(control, rxPctBase + (long) RX_PCT_ENTRY_SIZE * page);
    }

    private boolean grantedQuietly(int page, long grant) {
        return (rxPct(page) & grant) != 0;
    }

    /** The page's receive PCT entry at the home, once it grants {@code grant}. */
    private long granted(int page, long grant, String op) {
        long entry = rxPct(page);
        if ((entry & grant) == 0) {
            notGranted(page, grant, op, entry);
        }
        return entry;
    }

    private void notGranted(int page, long grant, String op, long entry) {
        refuse(op + " on page " + page + ": its receive PCT there is " + RxPct.describe(entry) + ", without "
                + (grant == RX_PCT_READ_EN_MASK ? "READ_EN" : "ATOMIC_EN"));
    }

    /**
     * The home counts an access it served, under the receive PCT {@code entry} of the page: in the calling
     * thread's stripe, with plain stores, unless the page has COUNT_IRQ.
     */
    private void served(int page, int counter, long entry) {
        if (RxPct.countInterrupt(entry)) {
            servedCountingAtTheHome(page, counter);
        } else {
            stripes.count(home, page, counter);
        }
    }

    /**
     * A COUNT_IRQ page is counted with an atomic add in the home's word by every requester, so that exactly one
     * sees the count reach the threshold: it raises PAGE_HOT.
     */
    private void servedCountingAtTheHome(int page, int counter) {
        int word = (int) INT.getAndAdd(control, countersBase + (long) SF_PAGE_COUNTER_SIZE * page + counter, 1) + 1;
        int threshold = (int) INT.getVolatile(control, homeRegs + REG_PAGE_CNT_THRESHOLD);
        if (threshold != 0 && CounterStripes.countAfterAtomicIncrement(control, layout, home, page, counter, word) == threshold) {
            INT.setVolatile(control, homeRegs + REG_PAGE_HOT, page);
            INT.getAndBitwiseOr(control, homeRegs + REG_IRQ_STATUS, IRQ_STATUS_PAGE_HOT_MASK);
            INT.getAndAdd(control, homeRegs + REG_NOTIFY_COUNT, 1);
            Posix.futexWake(control.asSlice(homeRegs + REG_NOTIFY_COUNT, 4));
        }
    }

    @Override
    public long getLongAcquire(long offset) {
        int page = wordPage(offset, "read");
        long entry = granted(page, RX_PCT_READ_EN_MASK, "read");
        long v = (long) LONG.getAcquire(data, offset);
        served(page, SF_PAGE_COUNTER_READS, entry);
        return v;
    }

    @Override
    public void copyTo(long offset, MemorySegment dst, long dstOffset, long length) {
        if (length < 1 || offset < 0 || offset > data.byteSize() - length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "remote copy of " + length + " bytes at offset " + offset
                    + ": outside the remote mapping of " + data.byteSize() + " bytes");
        }
        if (dstOffset < 0 || dstOffset > dst.byteSize() - length || dst.isReadOnly()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "remote copy of " + length + " bytes into a "
                    + (dst.isReadOnly() ? "read-only " : "") + "segment of " + dst.byteSize() + " bytes at " + dstOffset);
        }
        int first = firstPage + (int) (offset >>> pageShift);
        int last = firstPage + (int) ((offset + length - 1) >>> pageShift);
        for (int p = first; p <= last; p++) {
            if (!grantedQuietly(p, RX_PCT_READ_EN_MASK)) { // the message only when refused: no allocation per copy
                granted(p, RX_PCT_READ_EN_MASK, "copy of " + length + " bytes at offset " + offset);
            }
        }
        VarHandle.acquireFence(); // the copy reads what the home had stored before an earlier acquire load showed
        MemorySegment.copy(data, offset, dst, dstOffset, length);
        VarHandle.acquireFence();
        for (int p = first; p <= last; p++) {
            served(p, SF_PAGE_COUNTER_READS, rxPct(p));
        }
    }

    @Override
    public long getAndAdd(long offset, long delta) {
        int page = wordPage(offset, "fetch-and-add");
        long entry = granted(page, RX_PCT_ATOMIC_EN_MASK, "fetch-and-add");
        long old = (long) LONG.getAndAdd(data, offset, delta);
        served(page, SF_PAGE_COUNTER_ATOMICS, entry);
        return old;
    }

    @Override
    public long compareAndExchange(long offset, long expected, long value) {
        int page = wordPage(offset, "compare-and-swap");
        long entry = granted(page, RX_PCT_ATOMIC_EN_MASK, "compare-and-swap");
        long old = (long) LONG.compareAndExchange(data, offset, expected, value);
        served(page, SF_PAGE_COUNTER_ATOMICS, entry);
        return old;
    }

    @Override
    public long getAndSet(long offset, long value) {
        int page = wordPage(offset, "swap");
        long entry = granted(page, RX_PCT_ATOMIC_EN_MASK, "swap");
        long old = (long) LONG.getAndSet(data, offset, value);
        served(page, SF_PAGE_COUNTER_ATOMICS, entry);
        return old;
    }

    @Override
    public RemoteWord word(long offset) {
        return new Word(this, offset, wordPage(offset, "compare-and-swap"));
    }

    /**
     * A word for many atomics: the offset checked once, and what each atomic reads kept in the word itself (the
     * segments, the PCT entry's offset, its page's entry in a counter stripe, the last counting thread's claim),
     * so that the chains of loads between one atomic and the next stay short.
     */
    private static final class Word implements RemoteWord {
        private final SoftRemoteWindow window;
        private final MemorySegment control;
        private final MemorySegment data;
        private final CounterStripes stripes;
        private final long offset;
        private final long rxPctEntry;
        /** The ATOMICS count of the word's page, from a stripe's first entry. */
        private final long stripeEntry;
        private final int home;
        private final int page;
        /** The claim of the thread that counted last through this word (immutable, so a racy read is safe). */
        private CounterStripes.Claim claim = CounterStripes.NO_CLAIM;

        Word(SoftRemoteWindow window, long offset, int page) {
            this.window = window;
            this.control = window.control;
            this.data = window.data;
            this.stripes = window.stripes;
            this.offset = offset;
            this.rxPctEntry = window.rxPctBase + (long) RX_PCT_ENTRY_SIZE * page;
            this.stripeEntry = (long) SF_STRIPE_ENTRY_SIZE * page + SF_PAGE_COUNTER_ATOMICS;
            this.home = window.home;
            this.page = page;
        }

        @Override
        public long compareAndExchange(long expected, long value) {
            long entry = (long) LONG.getVolatile(control, rxPctEntry);
            if ((entry & RX_PCT_ATOMIC_EN_MASK) == 0) {
                window.notGranted(page, RX_PCT_ATOMIC_EN_MASK, "compare-and-swap", entry);
            }
            long old = (long) LONG.compareAndExchange(data, offset, expected, value);
            if (RxPct.countInterrupt(entry)) {
                window.servedCountingAtTheHome(page, SF_PAGE_COUNTER_ATOMICS);
            } else {
                CounterStripes.Claim c = claim;
                if (c.thread() != Thread.currentThread()) {
                    c = claim = stripes.claimOfThisThread();
                }
                if (c.stripe() != CounterStripes.NO_STRIPE) {
                    CounterStripes.countInStripe(control, c.stripe() + stripeEntry);
                } else {
                    stripes.countAtTheHome(home, page, SF_PAGE_COUNTER_ATOMICS);
                }
            }
            return old;
        }
    }

    @Override
    public void close() {
        release.accept(this);
    }
}
