package dev.memchan.internal.dev;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.internal.soft.SoftNotificationQueue;
import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.MappedGrant;
import dev.memchan.spi.NotificationQueue;
import dev.memchan.spi.RemoteWindow;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.REG_ERROR_COUNT;
import static dev.memchan.layout.Regs.REG_NOTIFY_COUNT;
import static dev.memchan.layout.Regs.RX_PCT_IRQ_ON_RX_MASK;
import static dev.memchan.layout.Regs.RX_PCT_RX_EN_MASK;
import static dev.memchan.layout.Regs.SF_PAGE_COUNTER_ATOMICS;
import static dev.memchan.layout.Regs.SF_PAGE_COUNTER_READS;
import static dev.memchan.layout.Regs.SF_NODE_REGS_SIZE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The adapter behind the kernel driver's {@code /dev/memchanN} ({@code dev:} locations), on the ioctl
 * ABI of native/include/uapi/linux/memchan.h (docs/driver.md). The driver grants pages per open
 * file; this class reference-counts them per process like the soft fabric does, asks the driver for
 * a grant when a page's count leaves 0 and gives it back when it returns to 0, and maps every grant
 * from the device (transmit read-write, receive read-only). The node ID is the adapter's: it is
 * set by root ({@code MEMCHAN_SET_NODE}) and shared by every process of the machine.
 */
public final class DevBackend implements Backend {
    /** What a receive grant may ask the driver for: the rest of an RX PCT entry is the driver's. */
    private static final long RX_PCT_GRANTABLE = RX_PCT_RX_EN_MASK | RX_PCT_IRQ_ON_RX_MASK | RxPct.REMOTE_GRANTS;

    private final String location;
    private final String path;
    private final int fd;
    private final int node;
    private final int maxNodes;
    private final int pageSize;
    private final int pageCount;
    private final int backendKind;
    /** The adapter's CAPS: request pages need REMOTE_READ or ATOMICS. */
    private final int caps;
    private final long incarnation;
    /** The driver reads and writes the adapter's MCAST_GROUP registers (MEMCHAN_INFO_MCAST_REGS). */
    private final boolean multicastRegisters;
    /** The driver carries notifications with data on this adapter (MEMCHAN_INFO_NOTIFY_DATA). */
    private final boolean notificationData;
    private final int[] txRefs;
    private final int[] rxRefs;
    private final List<MappedGrant> grants = new ArrayList<>();
    private final List<DevRemoteWindow> remotes = new ArrayList<>();
    private final List<DevNotificationQueue> queues = new ArrayList<>();
    private boolean closed;
    /** A descriptor of the device this backend holds a flock through ({@link AdapterGlob}), or -1. */
    private int heldLock = -1;

    private DevBackend(String path, int fd, int requestedNode) {
        this.location = "dev:" + path;
        this.path = path;
        this.fd = fd;
        MemorySegment info = info();
        int api = Uapi.memchan_info.api_version(info);
        if (api != Uapi.API_VERSION) {
            throw new MemchanException(Kind.BAD_FORMAT, path + ": driver API version " + api + ", this library speaks "
                    + Uapi.API_VERSION);
        }
        int current = Uapi.memchan_info.node_id(info);
        this.maxNodes = Uapi.memchan_info.max_nodes(info);
        if (requestedNode >= 0 && requestedNode != current) {
            if (requestedNode >= maxNodes) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + requestedNode + " out of range 0.."
                        + (maxNodes - 1) + " for " + location);
            }
            setNode(requestedNode);
            info = info();
            current = Uapi.memchan_info.node_id(info);
        }
        if (current == Uapi.NODE_NONE) {
            throw new MemchanException(Kind.NOT_FOUND, path + " has no node ID yet: root sets it (mcctl, or "
                    + "MEMCHAN_SET_NODE), or open it with an explicit node ID as root");
        }
        this.node = current;
        this.pageSize = Uapi.memchan_info.page_size(info);
        this.pageCount = Uapi.memchan_info.page_count(info);
        this.backendKind = Uapi.memchan_info.backend(info);
        this.caps = Uapi.memchan_info.caps(info);
        this.incarnation = Uapi.memchan_info.incarnation(info);
        this.multicastRegisters = (Uapi.memchan_info.flags(info) & Uapi.INFO_MCAST_REGS) != 0;
        this.notificationData = (Uapi.memchan_info.flags(info) & Uapi.INFO_NOTIFY_DATA) != 0;
        this.txRefs = new int[pageCount];
        this.rxRefs = new int[pageCount];
    }

    /** Opens {@code path} (e.g. /dev/memchan0); {@code nodeId} -1 keeps the adapter's node ID. */
    public static DevBackend open(String path, int nodeId) {
        int fd;
        try {
            fd = Posix.open(path, Posix.O_RDWR, 0);
        } catch (ErrnoException e) {
            throw new MemchanException(e.errno() == Posix.ENOENT ? Kind.NOT_FOUND
                    : e.errno() == Posix.EACCES ? Kind.PERMISSION : Kind.DEVICE_ERROR,
                    "dev:" + path + ": " + e.getMessage()
                            + (e.errno() == Posix.EACCES ? " (the device belongs to group memchan)" : ""), e);
        }
        try {
            return new DevBackend(path, fd, nodeId);
        } catch (RuntimeException e) {
            Posix.close(fd);
            throw e;
        }
    }

    // ---- ioctl plumbing ------------------------------------------------------------------------

    /** A zeroed argument struct of {@code layout} with {@code argsz} set to its size. */
    private static MemorySegment args(Arena arena, StructLayout layout) {
        MemorySegment s = arena.allocate(layout);
        s.set(JAVA_INT, layout.byteOffset(MemoryLayout.PathElement.groupElement("argsz")), (int) layout.byteSize());
        return s;
    }

    /** A zeroed argument struct of {@code layout} per thread, reused by every call of that thread. */
    static ThreadLocal<MemorySegment> threadArgs(StructLayout layout) {
        return ThreadLocal.withInitial(() -> args(Arena.ofAuto(), layout));
    }

    private void ioctl(long request, MemorySegment arg, String what) throws ErrnoException {
        Posix.ioctl(fd, request, arg);
    }

    private MemchanException fail(String what, ErrnoException e) {
        Kind kind = switch (e.errno()) {
            case Posix.EPERM, Posix.EACCES -> Kind.PERMISSION;
            case Posix.EBUSY, Posix.EEXIST -> Kind.IN_USE;
            case Posix.EINVAL, Posix.E2BIG -> Kind.INVALID_ARGUMENT;
            case Posix.ENXIO -> Kind.NOT_FOUND;            // no node ID
            case Posix.ENODEV -> Kind.CLOSED;              // the device went away
            case Posix.ETIMEDOUT -> Kind.TIMEOUT;
            default -> Kind.DEVICE_ERROR;
        };
        return new MemchanException(kind, location + ": " + what + ": " + e.getMessage(), e);
    }

    private MemorySegment info() {
        Arena arena = Arena.ofAuto();
        MemorySegment s = args(arena, Uapi.memchan_info.LAYOUT);
        try {
            ioctl(Uapi.INFO, s, "info");
        } catch (ErrnoException e) {
            throw fail("MEMCHAN_INFO", e);
        }
        return s;
    }

    private void setNode(int id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_node.LAYOUT);
            Uapi.memchan_node.node_id(s, id);
            ioctl(Uapi.SET_NODE, s, "set node");
        } catch (ErrnoException e) {
            throw fail("setting node ID " + id + (e.errno() == Posix.EPERM ? " needs root (CAP_SYS_ADMIN)" : ""), e);
        }
    }

    // ---- Backend -------------------------------------------------------------------------------

    @Override
    public String kind() {
        return "dev";
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public int nodeId() {
        return node;
    }

    /**
     * The adapters of this host whose node ID is {@code node} (the driver's {@code node_id} in sysfs):
     * on a device fabric each node's processes name their node-local table by their own adapter.
     */
    @Override
    public List<String> locationsOfNodeHere(int n) {
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                Path.of("/sys/class/misc"), "memchan*")) {
            for (Path d : ds) {
                try {
                    if (Files.readString(d.resolve("node_id")).strip().equals(Integer.toString(n))) {
                        found.add("dev:/dev/" + d.getFileName());
                    }
                } catch (IOException e) {
                    // an adapter going away meanwhile: not one of node n's
                }
            }
        } catch (IOException e) {
            // no sysfs: no adapter of this host is known
        }
        return found;
    }

    @Override
    public int maxNodes() {
        return maxNodes;
    }

    @Override
    public int pageSize() {
        return pageSize;
    }

    @Override
    public int pageCount() {
        return pageCount;
    }

    @Override
    public long incarnation() {
        return incarnation;
    }

    /** MEMCHAN_BACKEND_HW (1) or MEMCHAN_BACKEND_IVSHMEM (2). */
    public int driverBackend() {
        return backendKind;
    }

    /** The ivshmem backend's GLOBAL_TIME is the clock master's CLOCK_MONOTONIC in ns (docs/driver.md). */
    @Override
    public dev.memchan.ClusterTime.Unit globalTimeUnit() {
        return backendKind == Uapi.BACKEND_IVSHMEM ? dev.memchan.ClusterTime.Unit.NANOSECONDS
                : dev.memchan.ClusterTime.Unit.LINK_CYCLES;
    }

    @Override
    public int readRegister(int offset) {
        if (offset < 0 || offset > SF_NODE_REGS_SIZE - 4 || (offset & 3) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("register offset 0x%x outside the register block", offset));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_reg.LAYOUT);
            Uapi.memchan_reg.offset(s, offset);
            ioctl(Uapi.REG_READ, s, "register read");
            return Uapi.memchan_reg.value(s);
        } catch (ErrnoException e) {
            throw fail(String.format("reading register 0x%x", offset), e);
        }
    }

    private void checkRange(int first, int count) {
        if (count < 1 || first < 0 || (long) first + count > pageCount) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "pages " + first + ".." + ((long) first + count - 1)
                    + " are outside the window 0.." + (pageCount - 1));
        }
    }

    private MemorySegment pct(int page, int flags, int tx, long rx) {
        checkRange(page, 1);
        Arena arena = Arena.ofAuto();
        MemorySegment s = args(arena, Uapi.memchan_pct.LAYOUT);
        Uapi.memchan_pct.flags(s, flags);
        Uapi.memchan_pct.page(s, page);
        Uapi.memchan_pct.tx_entry(s, tx);
        Uapi.memchan_pct.rx_entry(s, rx);
        try {
            ioctl(Uapi.PCT, s, "pct");
        } catch (ErrnoException e) {
            if ((flags & Uapi.PCT_WRITE_TX) != 0 && e.errno() == Posix.EBUSY) { // another node routes it elsewhere
                throw new MemchanException(Kind.INVALID_ARGUMENT, location + ": writing the transmit PCT entry of page "
                        + page + " as " + TxPct.describe(tx) + ": another node routes the page elsewhere; one network "
                        + "page has one route", e);
            }
            throw fail((flags == 0 ? "reading" : "writing") + " the PCT entry of page " + page
                    + (e.errno() == Posix.EPERM ? " (PCT writes need root)" : ""), e);
        }
        return s;
    }

    @Override
    public synchronized int txPct(int page) {
        ensureOpen();
        return Uapi.memchan_pct.tx_entry(pct(page, 0, 0, 0));
    }

    @Override
    public synchronized long rxPct(int page) {
        ensureOpen();
        return Uapi.memchan_pct.rx_entry(pct(page, 0, 0, 0));
    }

    /** One MEMCHAN_PCT per page (the driver reads both entries), through one argument struct. */
    @Override
    public synchronized void readPct(int firstPage, int[] tx, long[] rx) {
        ensureOpen();
        if (tx.length != rx.length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "tx and rx of different lengths: " + tx.length + ", " + rx.length);
        }
        checkRange(firstPage, tx.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_pct.LAYOUT);
            for (int i = 0; i < tx.length; i++) {
                Uapi.memchan_pct.page(s, firstPage + i);
                Uapi.memchan_pct.tx_entry(s, 0); // a read: the driver wants both entries 0 on the way in
                Uapi.memchan_pct.rx_entry(s, 0);
                try {
                    ioctl(Uapi.PCT, s, "pct");
                } catch (ErrnoException e) {
                    throw fail("reading the PCT entry of page " + (firstPage + i), e);
                }
                tx[i] = Uapi.memchan_pct.tx_entry(s);
                rx[i] = Uapi.memchan_pct.rx_entry(s);
            }
        }
    }

    @Override
    public boolean hasMulticastRegisters() {
        return multicastRegisters;
    }

    @Override
    public synchronized int writeMulticastGroup(int group, int nodeMask) {
        ensureOpen();
        if (!multicastRegisters) {
            return Backend.super.writeMulticastGroup(group, nodeMask);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_mcast_group.LAYOUT);
            Uapi.memchan_mcast_group.flags(s, Uapi.MCAST_WRITE);
            Uapi.memchan_mcast_group.group(s, group);
            Uapi.memchan_mcast_group.mask(s, nodeMask);
            ioctl(Uapi.MCAST_GROUP, s, "multicast group");
            return Uapi.memchan_mcast_group.mask(s);
        } catch (ErrnoException e) {
            throw fail(String.format("writing multicast group %d's register (nodes 0x%x)", group, nodeMask), e);
        }
    }

    /** Request pages (TX PCT OP other than WRITE) only on a board with the CAPS they need: the driver's rule (generated). */
    String txProblem(int entry) {
        return TxPct.problem(entry, maxNodes, caps, backendKind != Uapi.BACKEND_HW);
    }

    /** The kind of a refused entry: UNSUPPORTED where the driver answers EOPNOTSUPP, else INVALID_ARGUMENT. */
    private Kind txRefusal(int entry) {
        return TxPct.unsupported(entry, maxNodes, caps, backendKind != Uapi.BACKEND_HW) ? Kind.UNSUPPORTED : Kind.INVALID_ARGUMENT;
    }

    @Override
    public synchronized void writeTxPct(int page, int entry) {
        ensureOpen();
        checkRange(page, 1);
        String problem = txProblem(entry);
        if (problem != null) {
            throw new MemchanException(txRefusal(entry), "transmit PCT entry for page " + page + ": " + problem);
        }
        if (txRefs[page] > 0) {
            throw new MemchanException(Kind.IN_USE, "page " + page + " is mapped for transmit by this process; detach it first");
        }
        pct(page, Uapi.PCT_WRITE_TX, entry, 0);
    }

    @Override
    public synchronized void writeRxPct(int page, long entry) {
        ensureOpen();
        checkRange(page, 1);
        String problem = RxPct.problem(entry);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "receive PCT entry for page " + page + ": " + problem);
        }
        if (rxRefs[page] > 0) {
            throw new MemchanException(Kind.IN_USE, "page " + page + " is mapped for receive by this process; detach it first");
        }
        pct(page, Uapi.PCT_WRITE_RX, 0, entry);
    }

    /** Driver grant (or revoke) of [first, first + count); the file's own count is per page. */
    private void driverGrant(boolean grant, boolean transmit, int first, int count, int txEntry, int rxFlags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_grant.LAYOUT);
            Uapi.memchan_grant.flags(s, transmit ? Uapi.GRANT_TX : Uapi.GRANT_RX);
            Uapi.memchan_grant.first_page(s, first);
            Uapi.memchan_grant.count(s, count);
            if (grant) {
                Uapi.memchan_grant.tx_entry(s, txEntry);
                Uapi.memchan_grant.rx_flags(s, rxFlags);
            }
            ioctl(grant ? Uapi.GRANT : Uapi.REVOKE, s, "grant");
        } catch (ErrnoException e) {
            String what = (grant ? "granting" : "revoking") + " pages " + first + "+" + count
                    + (transmit ? " for transmit as " + TxPct.describe(txEntry) : " for receive");
            if (grant && e.errno() == Posix.EBUSY) { // another route on this page
                throw new MemchanException(Kind.INVALID_ARGUMENT, location + ": " + what
                        + ": the page already has another route; one network page has one route", e);
            }
            throw fail(what, e);
        }
    }

    /** Asks the driver for every page of the range whose count is 0, in runs; undoes all on failure. */
    private void acquire(boolean transmit, int first, int count, int txEntry, int rxFlags) {
        int[] refs = transmit ? txRefs : rxRefs;
        List<int[]> done = new ArrayList<>();
        try {
            int p = first;
            while (p < first + count) {
                if (refs[p] > 0) {
                    p++;
                    continue;
                }
                int start = p;
                while (p < first + count && refs[p] == 0) {
                    p++;
                }
                driverGrant(true, transmit, start, p - start, txEntry, rxFlags);
                done.add(new int[]{start, p - start});
            }
        } catch (RuntimeException e) {
            for (int[] run : done) {
                try {
                    driverGrant(false, transmit, run[0], run[1], 0, 0);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        for (int p = first; p < first + count; p++) {
            refs[p]++;
        }
    }

    @Override
    public synchronized Grant grantTransmit(int firstPage, int count, int txEntry) {
        ensureOpen();
        checkRange(firstPage, count);
        String problem = txProblem(txEntry);
        if (problem != null || !TxPct.enabled(txEntry)) {
            throw new MemchanException(problem == null ? Kind.INVALID_ARGUMENT : txRefusal(txEntry),
                    "a transmit grant needs a valid entry with TX_EN" + (problem == null ? "" : ": " + problem));
        }
        for (int p = firstPage; p < firstPage + count; p++) {
            if (txRefs[p] > 0) {
                int cur = txPct(p);
                if (cur != txEntry) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + p + " is already mapped for transmit as "
                            + TxPct.describe(cur) + ", not " + TxPct.describe(txEntry));
                }
            }
        }
        acquire(true, firstPage, count, txEntry, 0);
        return map(firstPage, count, true);
    }

    @Override
    public synchronized Grant grantReceive(int firstPage, int count, long rxEntry) {
        ensureOpen();
        checkRange(firstPage, count);
        String problem = RxPct.problem(rxEntry);
        if (problem != null || !RxPct.enabled(rxEntry) || (rxEntry & ~RX_PCT_GRANTABLE) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a receive grant needs an entry of RX_EN and optionally "
                    + "IRQ_ON_RX, READ_EN, ATOMIC_EN, COUNT_IRQ (the driver owns remapping)"
                    + (problem == null ? "" : ": " + problem));
        }
        for (int p = firstPage; p < firstPage + count; p++) {
            if (rxRefs[p] > 0) {
                long cur = rxPct(p) & RX_PCT_GRANTABLE;
                if (cur != rxEntry) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + p + " is already mapped for receive as "
                            + RxPct.describe(cur) + ", not " + RxPct.describe(rxEntry));
                }
            }
        }
        int rxFlags = (RxPct.interruptOnReceive(rxEntry) ? Uapi.RX_IRQ : 0) | (RxPct.readable(rxEntry) ? Uapi.RX_READ : 0)
                | (RxPct.atomics(rxEntry) ? Uapi.RX_ATOMIC : 0) | (RxPct.countInterrupt(rxEntry) ? Uapi.RX_COUNT_IRQ : 0);
        acquire(false, firstPage, count, 0, rxFlags);
        return map(firstPage, count, false);
    }

    private MappedGrant map(int firstPage, int count, boolean transmit) {
        Arena arena = Arena.ofShared();
        long offset = (transmit ? Uapi.MMAP_TX_BASE : Uapi.MMAP_RX_BASE) + (long) firstPage * pageSize;
        try {
            MemorySegment seg = Posix.mmap(fd, offset, (long) count * pageSize, transmit, arena);
            // Board transmit windows are write-combining; say so for every device grant (the safe answer).
            MappedGrant g = new MappedGrant(firstPage, count, transmit, true, arena, seg, this::release);
            grants.add(g);
            return g;
        } catch (ErrnoException e) {
            arena.close();
            release(transmit, firstPage, count);
            throw fail("mapping pages " + firstPage + "+" + count, e);
        }
    }

    private void release(boolean transmit, int first, int count) {
        int[] refs = transmit ? txRefs : rxRefs;
        int p = first;
        while (p < first + count) {
            if (--refs[p] > 0) {
                p++;
                continue;
            }
            int start = p++;
            while (p < first + count && refs[p] == 1) {
                refs[p++] = 0;
            }
            driverGrant(false, transmit, start, p - start, 0, 0);
        }
    }

    private synchronized void release(MappedGrant g) {
        if (!grants.remove(g)) {
            return;
        }
        g.arena().close();
        if (!closed) {
            release(g.transmit(), g.firstPage(), g.pageCount());
        }
    }

    @Override
    public synchronized RemoteWindow openRemote(int home, int firstPage, int count) {
        ensureOpen();
        if (home < 0 || home >= maxNodes) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "home node " + home + " out of range 0.." + (maxNodes - 1));
        }
        checkRange(firstPage, count);
        DevRemoteWindow w = DevRemoteWindow.open(fd, location, home, firstPage, count, pageSize, this::releaseRemote);
        remotes.add(w);
        return w;
    }

    private synchronized void releaseRemote(DevRemoteWindow w) {
        remotes.remove(w);
    }

    /** MEMCHAN_PAGE_COUNTERS of {@code page} with {@code flags}; the struct comes back filled. */
    private MemorySegment pageCounters(Arena arena, int page, int flags, int threshold) {
        checkRange(page, 1);
        MemorySegment s = args(arena, Uapi.memchan_page_counters.LAYOUT);
        Uapi.memchan_page_counters.flags(s, flags);
        Uapi.memchan_page_counters.page(s, page);
        Uapi.memchan_page_counters.threshold(s, threshold);
        try {
            ioctl(Uapi.PAGE_COUNTERS, s, "page counters");
        } catch (ErrnoException e) {
            throw pageCountersFailed(page, e);
        }
        return s;
    }

    private MemchanException pageCountersFailed(int page, ErrnoException e) {
        if (e.errno() == Posix.EOPNOTSUPP) {
            return new MemchanException(Kind.UNSUPPORTED, location + ": page access counters are not supported by "
                    + "this driver backend (MEMCHAN_PAGE_COUNTERS: EOPNOTSUPP)", e);
        }
        return fail("page counters of page " + page, e);
    }

    @Override
    public long pageCounter(int page, int counter) {
        if (counter != SF_PAGE_COUNTER_READS && counter != SF_PAGE_COUNTER_ATOMICS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "no page counter at offset " + counter);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = pageCounters(arena, page, 0, 0);
            return Integer.toUnsignedLong(counter == SF_PAGE_COUNTER_READS ? Uapi.memchan_page_counters.reads(s)
                    : Uapi.memchan_page_counters.atomics(s));
        }
    }

    /** One MEMCHAN_PAGE_COUNTERS per page (the driver reads both counters), through one argument struct. */
    @Override
    public void readPageCounters(int firstPage, long[] reads, long[] atomics) {
        ensureOpen();
        if (reads.length != atomics.length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT,
                    "reads and atomics of different lengths: " + reads.length + ", " + atomics.length);
        }
        checkRange(firstPage, reads.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_page_counters.LAYOUT);
            for (int i = 0; i < reads.length; i++) {
                int page = firstPage + i;
                Uapi.memchan_page_counters.page(s, page);
                Uapi.memchan_page_counters.threshold(s, 0); // outputs: the driver wants them 0 on the way in
                Uapi.memchan_page_counters.reads(s, 0);
                Uapi.memchan_page_counters.atomics(s, 0);
                Uapi.memchan_page_counters.hot(s, 0);
                try {
                    ioctl(Uapi.PAGE_COUNTERS, s, "page counters");
                } catch (ErrnoException e) {
                    throw pageCountersFailed(page, e);
                }
                reads[i] = Integer.toUnsignedLong(Uapi.memchan_page_counters.reads(s));
                atomics[i] = Integer.toUnsignedLong(Uapi.memchan_page_counters.atomics(s));
            }
        }
    }

    @Override
    public void setPageCountThreshold(int threshold) {
        ensureOpen();
        if (threshold < 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "page count threshold " + threshold + " is negative (0 turns it off)");
        }
        try (Arena arena = Arena.ofConfined()) {
            pageCounters(arena, 0, Uapi.PAGE_SET_THRESHOLD, threshold);
        }
    }

    @Override
    public int takeHotPage() {
        try (Arena arena = Arena.ofConfined()) {
            int hot = Uapi.memchan_page_counters.hot(pageCounters(arena, 0, Uapi.PAGE_TAKE_HOT, 0));
            return hot == Uapi.PAGE_NONE ? -1 : hot;
        }
    }

    @Override
    public void setLoopback(int mode) {
        if (mode < 0 || mode > 2) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "loopback mode " + mode + ": 0 off, 1 internal, 2 external");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_loopback.LAYOUT);
            Uapi.memchan_loopback.mode(s, mode);
            ioctl(Uapi.LOOPBACK, s, "loopback");
        } catch (ErrnoException e) {
            throw fail("set loopback mode " + mode, e);
        }
    }

    @Override
    public void ackBarrier(Duration timeout) {
        long ns = Math.clamp(timeout.toNanos(), 1L, 10_000_000_000L);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_barrier.LAYOUT);
            Uapi.memchan_barrier.timeout_ns(s, ns);
            ioctl(Uapi.BARRIER, s, "barrier");
        } catch (ErrnoException e) {
            throw fail("acknowledge sweep", e);
        }
    }

    @Override
    public void raiseNotify(int page) {
        checkRange(page, 1);
        VarHandle.fullFence();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_notify.LAYOUT);
            Uapi.memchan_notify.page(s, page);
            ioctl(Uapi.NOTIFY, s, "notify");
        } catch (ErrnoException e) {
            if (e.errno() == Posix.EOPNOTSUPP) { // EOPNOTSUPP: on a board the packet raises the interrupt itself
                return;
            }
            throw fail("notifying the receivers of page " + page
                    + (e.errno() == Posix.EACCES ? " (this process does not transmit on it)" : ""), e);
        }
    }

    private static final ThreadLocal<MemorySegment> NOTIFY_DATA_ARGS = threadArgs(Uapi.memchan_notify_data.LAYOUT);

    /**
     * The driver's ivshmem backend carries them (MEMCHAN_INFO_NOTIFY_DATA); a board's adapter does not enqueue
     * them yet, and the driver answers for it with UNSUPPORTED.
     */
    @Override
    public void requireNotificationData() {
        if (!notificationData) {
            throw new MemchanException(Kind.UNSUPPORTED, location + ": notifications that carry data are not supported on "
                    + (backendKind == Uapi.BACKEND_HW ? "the board: its adapter's receive path has no notification queue yet"
                    : "this driver backend") + " (the driver carries them on ivshmem; docs/architecture.md, \"Notifications"
                    + " that carry data\")");
        }
    }

    /** MEMCHAN_NOTIFY_DATA: the driver checks the receiver's RX PCT, enqueues and raises its interrupt. */
    @Override
    public void postNotification(int dest, int page, long payload) {
        ensureOpen();
        requireNotificationData();
        SoftNotificationQueue.checkNotification(dest, maxNodes, page, pageCount, payload);
        MemorySegment s = NOTIFY_DATA_ARGS.get();
        Uapi.memchan_notify_data.node(s, dest);
        Uapi.memchan_notify_data.page(s, page);
        Uapi.memchan_notify_data.payload(s, payload);
        Uapi.memchan_notify_data.queued(s, 0); // an output: the driver wants it 0 on the way in
        try {
            ioctl(Uapi.NOTIFY_DATA, s, "notify data");
        } catch (ErrnoException e) {
            if (e.errno() == Posix.EACCES) {
                throw new MemchanException(Kind.PERMISSION, "node " + dest + " does not receive page " + page
                        + " (its receive PCT there is without RX_EN): no notification queue of it there", e);
            }
            throw fail("notification with data to node " + dest + " in page " + page, e);
        }
    }

    @Override
    public synchronized NotificationQueue openNotificationQueue(int page) {
        ensureOpen();
        requireNotificationData();
        checkRange(page, 1);
        DevNotificationQueue q = DevNotificationQueue.open(fd, location, node, page, NotifyQueueDescriptor.capacity(pageSize),
                this::releaseQueue);
        queues.add(q);
        return q;
    }

    private synchronized void releaseQueue(DevNotificationQueue q) {
        queues.remove(q);
    }

    @Override
    public int notifyCount() {
        return readRegister(REG_NOTIFY_COUNT);
    }

    @Override
    public void awaitNotify(int observed, long timeoutNanos) {
        if (timeoutNanos <= 0) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_wait.LAYOUT);
            Uapi.memchan_wait.timeout_ns(s, Math.min(timeoutNanos, 3_600_000_000_000L));
            Uapi.memchan_wait.count(s, observed);
            ioctl(Uapi.WAIT, s, "wait");
        } catch (ErrnoException e) {
            if (e.errno() == Posix.ETIMEDOUT || e.errno() == Posix.EINTR) {
                return; // callers re-check their condition
            }
            throw fail("waiting for a notification", e);
        }
    }

    @Override
    public long errorCount() {
        return Integer.toUnsignedLong(readRegister(REG_ERROR_COUNT));
    }

    @Override
    public void releaseDeadNode(int n, long deadIncarnation) {
        if (n == node || n < 0 || n >= maxNodes) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = args(arena, Uapi.memchan_release.LAYOUT);
            Uapi.memchan_release.node(s, n);
            Uapi.memchan_release.incarnation(s, deadIncarnation);
            ioctl(Uapi.RELEASE_NODE, s, "release node");
        } catch (ErrnoException e) {
            throw fail("releasing dead node " + n, e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, location + " node " + node + " is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MappedGrant g : new ArrayList<>(grants)) {
            release(g);
        }
        for (DevRemoteWindow w : new ArrayList<>(remotes)) {
            w.close();
        }
        for (DevNotificationQueue q : new ArrayList<>(queues)) {
            q.close();
        }
        Posix.close(fd); // the driver drops every grant this file still holds
        if (heldLock >= 0) {
            Posix.close(heldLock);
        }
    }

    /** Keeps {@code lockFd} (a flock on this device) open until this backend closes. */
    synchronized void holdUntilClosed(int lockFd) {
        heldLock = lockFd;
    }

    @Override
    public String toString() {
        return "DevBackend[" + path + ", node " + node + "]";
    }

}
