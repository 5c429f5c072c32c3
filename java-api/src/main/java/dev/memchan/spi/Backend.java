package dev.memchan.spi;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * One node's adapter, as the library sees it: registers, PCT, grants of network pages mapped into
 * this process, the acknowledge sweep and receive notifications. Implemented by the soft fabric
 * ({@code shm:NAME}) and by the kernel driver's device ({@code dev:/dev/memchanN}); everything above
 * this interface (region directory, locks, membership, channels) is backend-independent and lives
 * in the fabric's system pages.
 *
 * <p>Every method that changes state validates all of its input first and throws
 * {@link dev.memchan.MemchanException} without changing anything when the input is bad.
 */
public interface Backend extends AutoCloseable {

    /** "soft" or "dev". */
    String kind();

    /** The URI this adapter was opened from, e.g. {@code shm:demo}. */
    String location();

    /**
     * Where a process on this host would have opened this fabric as node {@code node}: the locations its
     * node-local table is named by (the liveness rule asks that table whether a process of the node
     * lives). A soft fabric is one file, so its location; a device is one adapter per node, so the
     * dev backend names the adapters of this host whose node ID is {@code node}.
     */
    default java.util.List<String> locationsOfNodeHere(int node) {
        return java.util.List.of(location());
    }

    int nodeId();

    int maxNodes();

    int pageSize();

    int pageCount();

    /** A 32-bit register of this node's register block at its BAR0 offset ({@code Regs.REG_*}). */
    int readRegister(int offset);

    int txPct(int page);

    long rxPct(int page);

    /**
     * The PCT entries of pages {@code firstPage} .. {@code firstPage + tx.length - 1} into {@code tx[i]} and
     * {@code rx[i]} (arrays of one length), as {@link #txPct} and {@link #rxPct} return them: a scan of the
     * table. A backend that reads both entries of a page in one request overrides it to make one per page.
     */
    default void readPct(int firstPage, int[] tx, long[] rx) {
        if (tx.length != rx.length) {
            throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.INVALID_ARGUMENT,
                    "tx and rx of different lengths: " + tx.length + ", " + rx.length);
        }
        for (int i = 0; i < tx.length; i++) {
            tx[i] = txPct(firstPage + i);
            rx[i] = rxPct(firstPage + i);
        }
    }

    /** Raw, privileged PCT write (mcctl). Refuses invalid entries and route conflicts. */
    void writeTxPct(int page, int entry);

    /** Raw, privileged PCT write (mcctl). Refuses invalid entries. */
    void writeRxPct(int page, long entry);

    /**
     * Enables {@code count} pages from {@code firstPage} for transmit with {@code txEntry} and maps them
     * writable into this process. Pages granted more than once share the entry (reference counted);
     * a different entry for a page already granted is refused.
     */
    Grant grantTransmit(int firstPage, int count, int txEntry);

    /** Enables pages for receive with {@code rxEntry} and maps them read-only into this process. */
    Grant grantReceive(int firstPage, int count, long rxEntry);

    /**
     * Acknowledge sweep: returns once every store this process made through a transmit grant before the
     * call has reached its destinations (seed 000's barrier acknowledge). A backend whose grants are shadows
     * ({@link Grant#shadowed()}) pushes every grant's changes first ({@link #pushAllGrants()}), so a store
     * followed by the sweep needs no push of its own; a store that leaves a word as the twin holds it (a zero
     * over a zero) sends nothing that way, and is pushed as a range ({@link Grant#push}) before.
     */
    void ackBarrier(Duration timeout);

    /**
     * How long the library's acknowledge barriers ({@code Fabric.ackBarrier}, a new region's zeroing, a dead
     * node's lock bids cleared) wait before TIMEOUT: the time in which a live path acknowledges. 1 s where the
     * acknowledgements come from adapters or this host; a network backend whose lost peer fails the barrier at
     * once (DEVICE_ERROR) waits as long as a live but busy peer may take to answer.
     */
    default Duration ackBarrierBound() {
        return Duration.ofSeconds(1);
    }

    /**
     * The adapter's interrupt on receive for {@code page}: wakes the receivers whose RX PCT entry has
     * IRQ_ON_RX. On a board the packet itself does this and the call only orders it after earlier stores.
     */
    void raiseNotify(int page);

    /** This node's NOTIFY_COUNT: read it, re-check your condition, then {@link #awaitNotify}. */
    int notifyCount();

    /** Sleeps while NOTIFY_COUNT equals {@code observed}, at most {@code timeoutNanos}; may return early. */
    void awaitNotify(int observed, long timeoutNanos);

    /**
     * Refuses with UNSUPPORTED unless this backend carries notifications with data ({@link #postNotification},
     * {@link #openNotificationQueue}). The soft fabric, {@code ucx:} and the driver on ivshmem do; a board's adapter
     * has no notification queue yet.
     */
    default void requireNotificationData() {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": notifications that carry data are not supported on this backend"
                        + " (docs/architecture.md, \"Notifications that carry data\")");
    }

    /**
     * A notification with data from this node: {@code payload} (0 .. {@code NotifyQueueDescriptor.MAX_PAYLOAD}) and
     * this node's ID into node {@code dest}'s queue in network page {@code page}, after every store this process made
     * before (rule 1), then the receive interrupt of that page at {@code dest}. A full queue counts it in its
     * OVERFLOW word instead. Refused before anything is sent: a node or page out of range, a payload out of range
     * (INVALID_ARGUMENT); where this backend sees the receiver's PCT, a page {@code dest} does not receive (PERMISSION).
     */
    default void postNotification(int dest, int page, long payload) {
        requireNotificationData();
    }

    /** This node's notification queue in {@code page}, which it receives (PERMISSION otherwise). */
    default NotificationQueue openNotificationQueue(int page) {
        requireNotificationData();
        throw new IllegalStateException("requireNotificationData allowed a backend without a notification queue");
    }

    /**
     * Sets LOOPBACK.MODE (0 off, 1 internal, 2 external; privileged). Only adapters whose CAPS has the
     * LOOPBACK_* bits have a loopback mode: a soft fabric has no link to loop.
     */
    default void setLoopback(int mode) {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.INVALID_ARGUMENT,
                location() + " has no link and no loopback mode");
    }

    /**
     * Sends the changes of every transmit grant this process holds ({@link Grant#pushChanges()}): what a
     * lock's release and a barrier do first, the fence of every mapping at once. A no-op where grants are
     * the transmit window itself (nothing is {@link Grant#shadowed()}).
     */
    default void pushAllGrants() {
    }

    /**
     * Whether this backend's transmit grants are write-combining ({@link Grant#writeCombining()}): then a
     * lock's release must drain the protected stores with a real fence first. The safe answer is true.
     */
    default boolean transmitWriteCombining() {
        return true;
    }

    /**
     * Whether this adapter filters multicast by its own {@code MCAST_GROUP} registers (a board; on a hub
     * they also tell the hub whom to replicate a group's frames to). The cluster's groups live in the
     * directory; the library copies them into these registers ({@link #writeMulticastGroup}). A soft
     * fabric has none: it delivers by the directory's masks themselves.
     */
    default boolean hasMulticastRegisters() {
        return false;
    }

    /**
     * Writes {@code MCAST_GROUP} register {@code group} (a node mask) and returns it as read back. Refused
     * (nothing written) for a group out of range or nodes beyond {@link #maxNodes()}; only where
     * {@link #hasMulticastRegisters()}.
     */
    default int writeMulticastGroup(int group, int nodeMask) {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": multicast membership is the directory's; this adapter has no MCAST_GROUP registers to write");
    }

    /**
     * Remote read and atomics on {@code count} network pages from {@code firstPage} homed at node
     * {@code home} (seed 000's remote read, seed 003's remote atomics and copy). Refused, and counted in
     * the home's REMOTE_REFUSED, unless the home's receive PCT grants READ_EN or ATOMIC_EN on every page;
     * each operation checks its own grant again (a home may withdraw it).
     */
    default RemoteWindow openRemote(int home, int firstPage, int count) {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": remote read and atomics are not supported by this driver (no uapi to grant READ_EN/ATOMIC_EN yet)");
    }

    /**
     * A counter of remote accesses served by this node as the home of {@code page}, unsigned (wraps at
     * 2^32): {@code counter} is {@code Regs.SF_PAGE_COUNTER_READS} or {@code Regs.SF_PAGE_COUNTER_ATOMICS}.
     */
    default long pageCounter(int page, int counter) {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": page access counters are not supported by this driver");
    }

    /**
     * Both page counters of pages {@code firstPage} .. {@code firstPage + reads.length - 1} into
     * {@code reads[i]} and {@code atomics[i]} (arrays of one length), as {@link #pageCounter} returns them: a
     * scan of every page. A backend that reads both counters of a page in one request overrides it to make
     * one per page. UNSUPPORTED as {@link #pageCounter}.
     */
    default void readPageCounters(int firstPage, long[] reads, long[] atomics) {
        if (reads.length != atomics.length) {
            throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.INVALID_ARGUMENT,
                    "reads and atomics of different lengths: " + reads.length + ", " + atomics.length);
        }
        for (int i = 0; i < reads.length; i++) {
            reads[i] = pageCounter(firstPage + i, dev.memchan.layout.Regs.SF_PAGE_COUNTER_READS);
            atomics[i] = pageCounter(firstPage + i, dev.memchan.layout.Regs.SF_PAGE_COUNTER_ATOMICS);
        }
    }

    /** Sets PAGE_CNT_THRESHOLD (0: never notify). Privileged where the backend has privileges. */
    default void setPageCountThreshold(int threshold) {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": page access counters are not supported by this driver");
    }

    /**
     * Acknowledges IRQ_STATUS.PAGE_HOT: when it is set, clears it and returns PAGE_HOT (the page whose counter
     * reached the threshold), else -1.
     */
    default int takeHotPage() {
        throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                location() + ": page access counters are not supported by this driver");
    }

    /**
     * The global time (see {@code Fabric.clusterTime()}): by default the adapter's registers, where CAPS has
     * GLOBAL_CLOCK. GLOBAL_TIME_LO latches GLOBAL_TIME_HI, a latch that every reader of the adapter shares: a
     * reader in another process between our two reads can hand us a high word one wrap newer when the low word
     * wraps in between, so a low word near the wrap is read again until two readings agree.
     */
    default dev.memchan.ClusterTime clusterTime() {
        if ((readRegister(dev.memchan.layout.Regs.REG_CAPS) & dev.memchan.layout.Regs.CAPS_GLOBAL_CLOCK_MASK) == 0) {
            throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.UNSUPPORTED,
                    location() + ": no global clock (CAPS.GLOBAL_CLOCK is clear)");
        }
        long nearWrap = 0xFF00_0000L;          // 2^24 cycles before the wrap: 67 ms at 250 MHz
        long time = globalTimeOnce();
        for (int tries = 0; Integer.toUnsignedLong((int) time) >= nearWrap && tries < 8; tries++) {
            long again = globalTimeOnce();
            if (again >= time && again - time < 1L << 31) {   // a torn reading is 2^32 ahead
                time = again;
                break;
            }
            time = again;
        }
        long bound = Integer.toUnsignedLong(readRegister(dev.memchan.layout.Regs.REG_CLOCK_BOUND));
        if (bound == 0xFFFF_FFFFL) {
            throw new dev.memchan.MemchanException(dev.memchan.MemchanException.Kind.DEVICE_ERROR,
                    location() + ": the global clock is not synchronized (no sync frame within 4 intervals)");
        }
        int offset = readRegister(dev.memchan.layout.Regs.REG_CLOCK_OFFSET);
        return new dev.memchan.ClusterTime(time, bound, offset, globalTimeUnit());
    }

    /** What a tick of the GLOBAL_TIME register is: link cycles on an adapter (the default). */
    default dev.memchan.ClusterTime.Unit globalTimeUnit() {
        return dev.memchan.ClusterTime.Unit.LINK_CYCLES;
    }

    private long globalTimeOnce() {
        int lo = readRegister(dev.memchan.layout.Regs.REG_GLOBAL_TIME_LO);
        return registerPair(lo, readRegister(dev.memchan.layout.Regs.REG_GLOBAL_TIME_HI));
    }

    /** A 64-bit value from its two registers (_LO, _HI; registers are 32 bits wide), read in that order. */
    static long registerPair(int lo, int hi) {
        return Integer.toUnsignedLong(hi) << Integer.SIZE | Integer.toUnsignedLong(lo);
    }

    /** Transfers that may have been lost (the adapter's ERROR_COUNT); always 0 on the soft fabric. */
    long errorCount();

    /**
     * Called by the cluster service when it has declared node {@code node}'s incarnation {@code incarnation} dead,
     * before it takes the cluster lock and cleans up: a backend whose barriers wait for every live port (a hub) cuts that
     * incarnation off at once, so the barrier does not wait for the transport to find it gone. A backend without
     * such a hub does nothing. Throws when the backend refuses the declaration (no such incarnation there), which
     * then changes nothing.
     */
    default void fenceDeadNode(int node, long incarnation) {
    }

    /**
     * Whether the fabric cut this node off because the cluster declared its incarnation dead (a hub's fence at another
     * node's {@link #fenceDeadNode}): the cluster's writes no longer reach it, its member slot included, so the cluster
     * service takes the node as evicted.
     */
    default boolean fencedOff() {
        return false;
    }

    /**
     * Called by the cluster service after it has cleaned up a dead node's directory state: frees the
     * dead node's adapter-side state where this backend can see it (the soft fabric clears the node
     * block's PCTs and releases its OWNER word if still held by that incarnation).
     */
    void releaseDeadNode(int node, long incarnation);

    /** Incarnation of this node's claim (changes every time the node ID is claimed). */
    long incarnation();

    @Override
    void close();

    /** Pages mapped into this process. Closing unmaps them and withdraws the PCT entries it enabled. */
    interface Grant extends AutoCloseable {
        int firstPage();

        int pageCount();

        /** Writable for transmit grants, read-only for receive grants. Invalid after {@link #close()}. */
        MemorySegment segment();

        /**
         * True when the pages are mapped write-combining (a board's transmit window), where x86-TSO
         * does not order stores and a store fence must be a real fence instruction. False for
         * write-back memory (the soft fabric), where TSO already keeps stores in program order.
         * The safe answer, and the default, is true.
         */
        default boolean writeCombining() {
            return true;
        }

        /**
         * True when {@link #segment()} is this process's shadow of the transmit pages rather than the
         * transmit window itself (a network backend, {@code ucx:}): a store reaches the network only when it
         * is pushed, by {@link #push} (the library's ordered stores) or {@link #pushChanges} (a fence). False
         * on a board, the soft fabric and ivshmem, where every store is already on its way and both pushes
         * are no-ops.
         */
        default boolean shadowed() {
            return false;
        }

        /**
         * Sends bytes {@code offset .. offset + length - 1} of {@link #segment()} as they are now, every byte
         * of them whether or not it changed, after everything this grant pushed before: an ordered store (a
         * flag, a frame, a directory entry). Offsets are bytes from the grant's first page; a range outside
         * the grant is refused with INVALID_ARGUMENT and nothing sent. A no-op unless {@link #shadowed()}.
         */
        default void push(long offset, long length) {
        }

        /**
         * A store fence: sends every word of {@link #segment()} that differs from what this grant last sent,
         * after everything it pushed before. Stores that left a word as this grant last sent it send nothing.
         * A no-op unless {@link #shadowed()}.
         */
        default void pushChanges() {
        }

        @Override
        void close();
    }
}
