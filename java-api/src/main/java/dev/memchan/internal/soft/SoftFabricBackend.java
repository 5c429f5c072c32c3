package dev.memchan.internal.soft;

import dev.memchan.ClusterTime;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.MemberSlot;
import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.Liveness;
import dev.memchan.internal.PctRules;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeShared;
import dev.memchan.internal.local.NodeLocalDescriptor;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.SoftFabricLayout;
import dev.memchan.layout.TxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.MappedGrant;
import dev.memchan.spi.NotificationQueue;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The emulated adapter of one node in a soft fabric file. The node ID is claimed by a
 * compare-and-set of the node block's OWNER word; the PCTs are the node block's tables; a grant maps
 * the network pages' file range, writable for transmit and read-only for receive, so the sender's
 * outgoing mapping and every receiver's incoming mapping are the same physical page.
 */
public final class SoftFabricBackend implements Backend, NodeShared {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final String location;
    private final int fd;
    private final SoftFabricLayout layout;
    private final Arena controlArena = Arena.ofShared();
    /** Header and every node block, read-write: the adapters' registers and PCTs. */
    private final MemorySegment control;
    private final int node;
    private final long incarnation;
    private final NodeLocal local;
    private final int slot;
    private final int pid = Posix.getpid();
    private final Liveness liveness;
    private final long regs;
    private final int[] txRefs;
    private final int[] rxRefs;
    private final List<MappedGrant> grants = new ArrayList<>();
    private final List<SoftRemoteWindow> remotes = new ArrayList<>();
    private final CounterStripes stripes;
    /** Every data page, writable: the notification queues' pages, which producers and consumers both write. */
    private final Arena queueArena = Arena.ofShared();
    private volatile MemorySegment queuePages;
    private boolean closed;

    private SoftFabricBackend(String location, SoftFabricFile.Opened opened, int requestedNode, Liveness liveness) {
        this.location = location;
        this.fd = opened.fd();
        this.layout = opened.layout();
        this.liveness = liveness;
        try {
            this.control = Posix.mmap(fd, 0, layout.dataOffset(), true, controlArena);
        } catch (ErrnoException e) {
            controlArena.close();
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map node blocks: " + e.getMessage(), e);
        }
        this.txRefs = new int[layout.pageCount()];
        this.rxRefs = new int[layout.pageCount()];
        Claim claimed = null;
        if (requestedNode >= 0) {
            if (requestedNode >= layout.maxNodes()) {
                controlArena.close();
                throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + requestedNode + " out of range 0.."
                        + (layout.maxNodes() - 1) + " for " + location);
            }
            claimed = claimOrShare(requestedNode);
        } else {
            for (int n = 0; n < layout.maxNodes() && claimed == null; n++) {
                claimed = claim(n, false);
            }
            if (claimed == null) {
                controlArena.close();
                throw new MemchanException(Kind.IN_USE, location + ": all " + layout.maxNodes() + " node IDs are in use");
            }
        }
        this.node = claimed.node();
        this.incarnation = SoftFabricGeometry.ownerIncarnation(claimed.owner());
        this.regs = layout.nodeBlock(node);
        this.stripes = new CounterStripes(control, layout, node);
        this.local = claimed.local();
        this.slot = claimed.slot();
        if (!claimed.shared()) {
            control.set(JAVA_INT, regs + REG_NODE_ID, (int) (node | NODE_ID_VALID_MASK));
            control.set(JAVA_INT, regs + REG_IRQ_STATUS, 0);
            control.set(JAVA_INT, regs + REG_BARRIER, 0);
        }
    }

    /** A claimed (or shared) node block and this process's slot in the node's local table. */
    private record Claim(int node, long owner, boolean shared, NodeLocal local, int slot) {
    }

    /**
     * Node {@code n} as asked for: claimed when free or stale, else shared with its live processes when
     * they run on this host (several processes per node), else IN_USE.
     */
    private Claim claimOrShare(int n) {
        for (int attempt = 0; attempt < 100; attempt++) {
            Claim c = claim(n, true);
            if (c != null) {
                return c;
            }
            long owner = (long) LONG.getVolatile(control, layout.nodeBlock(n) + SF_NODE_OWNER);
            if (owner == 0) {
                continue; // its last process left meanwhile: claim it
            }
            NodeLocal table = NodeLocal.open(location, n, layout.pageSize(), layout.pageCount());
            Integer mine;
            try {
                mine = table.locked(() -> {
                    // the claim's last process releases OWNER under this mutex: unchanged now, it stays
                    if ((long) LONG.getVolatile(control, layout.nodeBlock(n) + SF_NODE_OWNER) != owner
                            || table.incarnation() != SoftFabricGeometry.ownerIncarnation(owner) || table.otherLiveSlot(-1) < 0) {
                        return null;
                    }
                    return table.register();
                });
            } catch (RuntimeException e) {
                table.close();
                throw e;
            }
            if (mine != null) {
                return new Claim(n, owner, true, table, mine);
            }
            table.close();
        }
        throw new MemchanException(Kind.IN_USE, "node ID " + n + " of " + location + " keeps changing owner; try again");
    }

    /** Joins {@code path} as node {@code requestedNode}, or the first free node when it is -1. */
    public static SoftFabricBackend join(String location, Path path, int requestedNode, Duration heartbeatPeriod, Duration failureTimeout) {
        SoftFabricFile.Opened opened = SoftFabricFile.open(path);
        try {
            return new SoftFabricBackend(location, opened, requestedNode, new Liveness(heartbeatPeriod.toNanos(), failureTimeout.toNanos()));
        } catch (RuntimeException e) {
            Posix.close(opened.fd());
            throw e;
        }
    }

    @Override
    public NodeLocal nodeLocal() {
        return local;
    }

    @Override
    public int localSlot() {
        return slot;
    }

    public SoftFabricLayout layout() {
        return layout;
    }

    /**
     * Claims the node block: CAS OWNER 0 -> SoftFabricGeometry.ownerWord(incarnation, pid). A stale owner (the
     * {@link Liveness} rule) is taken over, after its PCT is cleared; the node's local table is then taken
     * for the new incarnation. Returns null when the node is in use by a live process on this host (it
     * may be shared), throws IN_USE when it is in use from another host and {@code mustHave}.
     */
    private Claim claim(int n, boolean mustHave) {
        long block = layout.nodeBlock(n);
        long myHost = HostIdentity.hostId();
        for (int attempt = 0; attempt < 100; attempt++) {
            long owner = (long) LONG.getVolatile(control, block + SF_NODE_OWNER);
            long nextIncarnation = SoftFabricGeometry.nextIncarnation((long) LONG.getVolatile(control, block + SF_NODE_INCARNATION));
            long word = SoftFabricGeometry.ownerWord(nextIncarnation, pid);
            if (owner != 0 && !ownerIsStale(n, owner)) {
                if (!mustHave || ((long) LONG.getVolatile(control, block + SF_NODE_HOST_ID)) == myHost) {
                    return null;
                }
                throw new MemchanException(Kind.IN_USE, "node ID " + n + " of " + location + " is in use by pid "
                        + SoftFabricGeometry.ownerPid(owner) + " on another host; pick another node ID or leave that node first");
            }
            if (LONG.compareAndSet(control, block + SF_NODE_OWNER, owner, word)) {
                if (owner != 0) {
                    clearPcts(n); // the dead owner's entries must not outlive it
                }
                LONG.setVolatile(control, block + SF_NODE_INCARNATION, nextIncarnation);
                LONG.setVolatile(control, block + SF_NODE_HOST_ID, myHost);
                NodeLocal table = NodeLocal.open(location, n, layout.pageSize(), layout.pageCount());
                int mine = table.locked(() -> {
                    table.resetIfStale(nextIncarnation);
                    return table.register();
                });
                return new Claim(n, word, false, table, mine);
            }
        }
        throw new MemchanException(Kind.IN_USE, "node ID " + n + " of " + location + " keeps changing owner; try again");
    }

    /** The {@link Liveness} rule on the OWNER of node {@code n}'s block: its pid here, its heartbeat elsewhere. */
    private boolean ownerIsStale(int n, long owner) {
        long hostId = (long) LONG.getVolatile(control, layout.nodeBlock(n) + SF_NODE_HOST_ID);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pages = Posix.mmap(fd, layout.dataPage(0), layout.dataPage(SYS_PAGES) - layout.dataPage(0), false, arena);
            return liveness.isDeadObserving(hostId,
                    () -> SoftFabricGeometry.ownerPid((long) LONG.getVolatile(control, layout.nodeBlock(n) + SF_NODE_OWNER)),
                    () -> NodeLocal.listsLiveProcess(location, n, SoftFabricGeometry.ownerIncarnation(
                            (long) LONG.getVolatile(control, layout.nodeBlock(n) + SF_NODE_OWNER))),
                    () -> MemberSlot.read(pages, layout.pageSize(), n).heartbeat());
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": " + e.getMessage(), e);
        }
    }

    /** Clears node {@code n}'s PCTs and the counters of the pages it was home of (a new claim starts from zero). */
    private void clearPcts(int n) {
        for (int p = 0; p < layout.pageCount(); p++) {
            INT.setVolatile(control, layout.txPct(n, p), 0);
            LONG.setVolatile(control, layout.rxPct(n, p), 0L);
        }
        for (int p = 0; p < layout.pageCount(); p++) {
            CounterStripes.clear(control, layout, n, p);
        }
        INT.setVolatile(control, layout.nodeBlock(n) + REG_PAGE_CNT_THRESHOLD, 0);
    }

    @Override
    public String kind() {
        return "soft";
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public int nodeId() {
        return node;
    }

    @Override
    public int maxNodes() {
        return layout.maxNodes();
    }

    @Override
    public int pageSize() {
        return layout.pageSize();
    }

    @Override
    public int pageCount() {
        return layout.pageCount();
    }

    @Override
    public long incarnation() {
        return incarnation;
    }

    @Override
    public int readRegister(int offset) {
        if (offset < 0 || offset > SF_NODE_REGS_SIZE - 4 || (offset & 3) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("register offset 0x%x outside the register block", offset));
        }
        return (int) INT.getVolatile(control, regs + offset);
    }

    /** A register of any node's emulated adapter (for status displays). */
    public int readRegister(int otherNode, int offset) {
        return (int) INT.getVolatile(control, layout.nodeBlock(otherNode) + offset);
    }

    private void checkRange(int first, int count) {
        if (count < 1 || first < 0 || (long) first + count > layout.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "pages " + first + ".." + ((long) first + count - 1)
                    + " are outside the window 0.." + (layout.pageCount() - 1));
        }
    }

    @Override
    public synchronized int txPct(int page) {
        checkRange(page, 1);
        return (int) INT.getVolatile(control, layout.txPct(node, page));
    }

    @Override
    public synchronized long rxPct(int page) {
        checkRange(page, 1);
        return (long) LONG.getVolatile(control, layout.rxPct(node, page));
    }

    /** Any node's TX PCT entry (the soft fabric can see them all). */
    public int txPct(int otherNode, int page) {
        return (int) INT.getVolatile(control, layout.txPct(otherNode, page));
    }

    /** Any node's RX PCT entry. */
    public long rxPct(int otherNode, int page) {
        return (long) LONG.getVolatile(control, layout.rxPct(otherNode, page));
    }

    private void checkTxEntry(int page, int entry) {
        checkTxEntry(page, entry, node, layout.maxNodes(), n -> txPct(n, page));
    }

    /**
     * The validation of a TX PCT write by {@code writer}: the entry as an emulated adapter takes it
     * ({@link #txProblem}) and one route per network page over the nodes' entries {@code txOfNode}
     * ({@link PctRules#routeProblem}).
     */
    static void checkTxEntry(int page, int entry, int writer, int maxNodes, java.util.function.IntUnaryOperator txOfNode) {
        String problem = txProblem(entry, maxNodes);
        if (problem != null) { // the driver's EINVAL or EOPNOTSUPP (regmap/memchan.toml [tx_pct_rule])
            throw new MemchanException(TxPct.unsupported(entry, maxNodes, (int) SF_INIT_CAPS, true) ? Kind.UNSUPPORTED : Kind.INVALID_ARGUMENT,
                    "transmit PCT entry for page " + page + ": " + problem);
        }
        String route = PctRules.routeProblem(page, entry, writer, maxNodes, txOfNode);
        if (route != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, route);
        }
    }

    /** Why a soft fabric's emulated adapter refuses transmit entry {@code entry}, or null (shared with {@link SoftFabricAdmin}). */
    static String txProblem(int entry, int maxNodes) {
        return TxPct.problem(entry, maxNodes, (int) SF_INIT_CAPS, true); // CAPS: a 32-bit register
    }

    @Override
    public synchronized void writeTxPct(int page, int entry) {
        ensureOpen();
        checkRange(page, 1);
        checkTxEntry(page, entry);
        if (txRefs[page] > 0 || local.locked(() -> local.pageMappedByOthers(slot, NodeLocalDescriptor.MAP_TX, page))) {
            throw new MemchanException(Kind.IN_USE, "page " + page + " is mapped for transmit by a process of this node; detach it first");
        }
        INT.setVolatile(control, layout.txPct(node, page), entry);
    }

    /** The validation of an RX PCT write: no reserved bits. */
    private static void checkRxEntry(int page, long entry) {
        String problem = RxPct.problem(entry);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "receive PCT entry for page " + page + ": " + problem);
        }
    }

    @Override
    public synchronized void writeRxPct(int page, long entry) {
        ensureOpen();
        checkRange(page, 1);
        checkRxEntry(page, entry);
        if (rxRefs[page] > 0 || local.locked(() -> local.pageMappedByOthers(slot, NodeLocalDescriptor.MAP_RX, page))) {
            throw new MemchanException(Kind.IN_USE, "page " + page + " is mapped for receive by a process of this node; detach it first");
        }
        LONG.setVolatile(control, layout.rxPct(node, page), entry);
    }

    @Override
    public synchronized Grant grantTransmit(int firstPage, int count, int txEntry) {
        ensureOpen();
        checkRange(firstPage, count);
        if (!TxPct.enabled(txEntry)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a transmit grant needs TX_EN in its entry");
        }
        return local.locked(() -> {
            for (int p = firstPage; p < firstPage + count; p++) {
                checkTxEntry(p, txEntry);
                if ((txRefs[p] > 0 || local.pageMappedByOthers(slot, NodeLocalDescriptor.MAP_TX, p)) && txPct(node, p) != txEntry) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + p + " is already mapped for transmit by this node as "
                            + TxPct.describe(txPct(node, p)) + ", not " + TxPct.describe(txEntry));
                }
            }
            MappedGrant g = map(firstPage, count, true);
            for (int p = firstPage; p < firstPage + count; p++) {
                if (txRefs[p]++ == 0) {
                    local.setPageMapped(slot, NodeLocalDescriptor.MAP_TX, p, true);
                    INT.setVolatile(control, layout.txPct(node, p), txEntry);
                }
            }
            return g;
        });
    }

    /** The node-local maps a receive entry's optional bits are counted in, in {@link #RX_MAP_BITS}' order. */
    private static final int[] RX_MAPS = {NodeLocalDescriptor.MAP_RX_NOTIFY, NodeLocalDescriptor.MAP_RX_READ,
            NodeLocalDescriptor.MAP_RX_ATOMIC, NodeLocalDescriptor.MAP_RX_COUNT_IRQ};
    private static final long[] RX_MAP_BITS = {RX_PCT_IRQ_ON_RX_MASK, RX_PCT_READ_EN_MASK, RX_PCT_ATOMIC_EN_MASK, RX_PCT_COUNT_IRQ_MASK};
    private static final long RX_GRANTABLE = RX_PCT_RX_EN_MASK | RX_PCT_IRQ_ON_RX_MASK | RxPct.REMOTE_GRANTS;

    /** This process's receive entry bits of page {@code p} as its node-local maps record them. */
    private long mappedRxEntry(int p) {
        long entry = RX_PCT_RX_EN_MASK;
        for (int i = 0; i < RX_MAPS.length; i++) {
            if (local.pageMapped(slot, RX_MAPS[i], p)) {
                entry |= RX_MAP_BITS[i];
            }
        }
        return entry;
    }

    @Override
    public synchronized Grant grantReceive(int firstPage, int count, long rxEntry) {
        ensureOpen();
        checkRange(firstPage, count);
        String problem = RxPct.problem(rxEntry);
        if (problem != null || !RxPct.enabled(rxEntry) || (rxEntry & ~RX_GRANTABLE) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a receive grant needs a valid entry with RX_EN and optionally "
                    + "IRQ_ON_RX, READ_EN, ATOMIC_EN, COUNT_IRQ" + (problem == null ? "" : ": " + problem));
        }
        return local.locked(() -> {
            for (int p = firstPage; p < firstPage + count; p++) {
                if (rxRefs[p] > 0 && mappedRxEntry(p) != rxEntry) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + p + " is already mapped for receive by this process as "
                            + RxPct.describe(mappedRxEntry(p)) + ", not " + RxPct.describe(rxEntry));
                }
            }
            MappedGrant g = map(firstPage, count, false);
            for (int p = firstPage; p < firstPage + count; p++) {
                if (rxRefs[p]++ == 0) {
                    local.setPageMapped(slot, NodeLocalDescriptor.MAP_RX, p, true);
                    for (int i = 0; i < RX_MAPS.length; i++) {
                        local.setPageMapped(slot, RX_MAPS[i], p, (rxEntry & RX_MAP_BITS[i]) != 0);
                    }
                    writeNodeRxEntry(p);
                }
            }
            return g;
        });
    }

    @Override
    public boolean transmitWriteCombining() {
        return false; // MAP_SHARED file pages: write-back memory
    }

    @Override
    public synchronized RemoteWindow openRemote(int home, int firstPage, int count) {
        ensureOpen();
        if (home < 0 || home >= layout.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "home node " + home + " out of range 0.." + (layout.maxNodes() - 1));
        }
        checkRange(firstPage, count);
        SoftRemoteWindow.checkHomed(control, layout, home, firstPage, count);
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = Posix.mmap(fd, layout.dataPage(firstPage), (long) count * layout.pageSize(), true, arena);
            SoftRemoteWindow w = new SoftRemoteWindow(control, layout, stripes, home, firstPage, count, arena, seg, this::releaseRemote);
            remotes.add(w);
            return w;
        } catch (ErrnoException e) {
            arena.close();
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map pages " + firstPage + "+" + count + ": " + e.getMessage(), e);
        }
    }

    private synchronized void releaseRemote(SoftRemoteWindow w) {
        if (remotes.remove(w)) {
            w.arena().close();
        }
    }

    @Override
    public long pageCounter(int page, int counter) {
        checkRange(page, 1);
        return pageCounter(node, page, counter);
    }

    /** Any node's counter of a page it is home of (status displays). */
    public long pageCounter(int otherNode, int page, int counter) {
        if (counter != SF_PAGE_COUNTER_READS && counter != SF_PAGE_COUNTER_ATOMICS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "no page counter at offset " + counter);
        }
        return Integer.toUnsignedLong(CounterStripes.read(control, layout, otherNode, page, counter));
    }

    @Override
    public int takeHotPage() {
        int status;
        do {
            status = (int) INT.getVolatile(control, regs + REG_IRQ_STATUS);
            if ((status & IRQ_STATUS_PAGE_HOT_MASK) == 0) {
                return -1;
            }
        } while (!INT.compareAndSet(control, regs + REG_IRQ_STATUS, status, status & ~IRQ_STATUS_PAGE_HOT_MASK));
        return (int) INT.getVolatile(control, regs + REG_PAGE_HOT);
    }

    @Override
    public void setPageCountThreshold(int threshold) {
        ensureOpen();
        if (threshold < 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "page count threshold " + threshold + " is negative (0 turns it off)");
        }
        INT.setVolatile(control, regs + REG_PAGE_CNT_THRESHOLD, threshold);
    }

    private MappedGrant map(int firstPage, int count, boolean transmit) {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = Posix.mmap(fd, layout.dataPage(firstPage), (long) count * layout.pageSize(), transmit, arena);
            // A MAP_SHARED file mapping is write-back memory: x86-TSO orders its stores (no WC fence needed).
            MappedGrant g = new MappedGrant(firstPage, count, transmit, false, arena, seg, this::release);
            grants.add(g);
            return g;
        } catch (ErrnoException e) {
            arena.close();
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map pages " + firstPage + "+" + count + ": " + e.getMessage(), e);
        }
    }

    private synchronized void release(MappedGrant g) {
        if (!grants.remove(g)) {
            return;
        }
        g.arena().close();
        int[] refs = g.transmit() ? txRefs : rxRefs;
        local.locked(() -> {
            boolean superseded = superseded();
            for (int p = g.firstPage(); p < g.firstPage() + g.pageCount(); p++) {
                if (--refs[p] == 0 && !superseded) {
                    unmapPage(slot, g.transmit(), p);
                }
            }
            return null;
        });
    }

    /**
     * The node block is no longer this claim's: the node was declared dead while this process lived, and
     * the OWNER word was released (or claimed again, as a new incarnation). Its PCTs and table are then
     * not this process's to change.
     */
    private boolean superseded() {
        long owner = (long) LONG.getVolatile(control, regs + SF_NODE_OWNER);
        return owner == 0 || SoftFabricGeometry.ownerIncarnation(owner) != incarnation;
    }

    /**
     * Under the table mutex: page {@code p} leaves process {@code s}'s transmit or receive map; the node's
     * PCT entry follows what the node's other processes still map (the reference count of a node).
     */
    private void unmapPage(int s, boolean transmit, int p) {
        if (transmit) {
            local.setPageMapped(s, NodeLocalDescriptor.MAP_TX, p, false);
            if (!local.pageMappedByOthers(-1, NodeLocalDescriptor.MAP_TX, p)) {
                INT.setVolatile(control, layout.txPct(node, p), 0);
            }
        } else {
            local.setPageMapped(s, NodeLocalDescriptor.MAP_RX, p, false);
            for (int map : RX_MAPS) {
                local.setPageMapped(s, map, p, false);
            }
            writeNodeRxEntry(p);
        }
    }

    /**
     * Under the table mutex: the node's RX entry of page p: enabled while a process maps it, notifying if
     * one asked, granting remote read, atomics and the counter interrupt while one of them grants it.
     */
    private void writeNodeRxEntry(int p) {
        long entry = 0;
        if (local.pageMappedByOthers(-1, NodeLocalDescriptor.MAP_RX, p)) {
            entry = RX_PCT_RX_EN_MASK;
            for (int i = 0; i < RX_MAPS.length; i++) {
                if (local.pageMappedByOthers(-1, RX_MAPS[i], p)) {
                    entry |= RX_MAP_BITS[i];
                }
            }
        }
        LONG.setVolatile(control, layout.rxPct(node, p), entry);
    }

    @Override
    public void releaseProcess(int s, int deadPid) {
        for (int p = 0; p < layout.pageCount(); p++) {
            if (local.pageMapped(s, NodeLocalDescriptor.MAP_TX, p)) {
                unmapPage(s, true, p);
            }
            if (local.pageMapped(s, NodeLocalDescriptor.MAP_RX, p)) {
                unmapPage(s, false, p);
            }
        }
        long owner = (long) LONG.getVolatile(control, regs + SF_NODE_OWNER);
        if (owner != 0 && SoftFabricGeometry.ownerPid(owner) == deadPid && SoftFabricGeometry.ownerIncarnation(owner) == incarnation) {
            LONG.compareAndSet(control, regs + SF_NODE_OWNER, owner, SoftFabricGeometry.ownerWord(incarnation, pid));
        }
    }

    @Override
    public void ackBarrier(Duration timeout) {
        // The stores are in the shared page once they leave this CPU's store buffer.
        VarHandle.fullFence();
        INT.setVolatile(control, regs + REG_BARRIER, BARRIER_DONE_MASK);
    }

    @Override
    public void raiseNotify(int page) {
        checkRange(page, 1);
        VarHandle.fullFence(); // the notification must not overtake the stores it announces
        for (int n = 0; n < layout.maxNodes(); n++) {
            long entry = rxPct(n, page);
            if (RxPct.enabled(entry) && RxPct.interruptOnReceive(entry)) {
                long r = layout.nodeBlock(n);
                INT.getAndBitwiseOr(control, r + REG_IRQ_STATUS, IRQ_STATUS_RX_NOTIFY_MASK);
                INT.setVolatile(control, r + REG_RX_NOTIFY_PAGE, page);
                INT.getAndAdd(control, r + REG_NOTIFY_COUNT, 1);
                Posix.futexWake(control.asSlice(r + REG_NOTIFY_COUNT, 4));
            }
        }
    }

    @Override
    public void requireNotificationData() {
        // the emulated adapter's notification queues are pages of the file
    }

    @Override
    public void postNotification(int dest, int page, long payload) {
        ensureOpen();
        SoftNotificationQueue.checkNotification(dest, layout.maxNodes(), page, layout.pageCount(), payload);
        if (!deliverNotification(dest, page, node, payload)) {
            throw new MemchanException(Kind.PERMISSION, "node " + dest + " does not receive page " + page
                    + " (receive PCT " + RxPct.describe(rxPct(dest, page)) + "): no notification queue of it there");
        }
    }

    /**
     * What node {@code dest}'s adapter does with a notification from {@code sender}: unless {@code dest} does not
     * receive {@code page} (false, nothing changed), enqueues {@code payload} and the sender into its queue there
     * (a full queue counts it in OVERFLOW) and raises its receive interrupt where the page has IRQ_ON_RX. The
     * stores before it are visible to whoever takes the entry: the enqueue's compare-and-set is a full fence.
     */
    public boolean deliverNotification(int dest, int page, int sender, long payload) {
        long entry = rxPct(dest, page);
        if (!RxPct.enabled(entry)) {
            return false;
        }
        SoftNotificationQueue.offer(queuePages(), layout.dataPage(page) - layout.dataPage(0), NotifyQueueDescriptor.capacity(layout.pageSize()),
                NotifyQueueDescriptor.entry(sender, payload));
        if (RxPct.interruptOnReceive(entry)) {
            long r = layout.nodeBlock(dest);
            INT.getAndBitwiseOr(control, r + REG_IRQ_STATUS, IRQ_STATUS_RX_NOTIFY_MASK);
            INT.setVolatile(control, r + REG_RX_NOTIFY_PAGE, page);
            INT.getAndAdd(control, r + REG_NOTIFY_COUNT, 1);
            Posix.futexWake(control.asSlice(r + REG_NOTIFY_COUNT, 4));
        }
        return true;
    }

    @Override
    public NotificationQueue openNotificationQueue(int page) {
        ensureOpen();
        checkRange(page, 1);
        if (!RxPct.enabled(rxPct(page))) {
            throw new MemchanException(Kind.PERMISSION, "node " + node + " does not receive page " + page
                    + ": a notification queue is a page its node receives");
        }
        return new SoftNotificationQueue(queuePages(), layout.dataPage(page) - layout.dataPage(0), layout.pageSize());
    }

    /** The data pages mapped writable, once per process. */
    private MemorySegment queuePages() {
        MemorySegment pages = queuePages;
        if (pages == null) {
            synchronized (this) {
                ensureOpen();
                pages = queuePages;
                if (pages == null) {
                    try {
                        pages = Posix.mmap(fd, layout.dataPage(0), (long) layout.pageCount() * layout.pageSize(), true, queueArena);
                    } catch (ErrnoException e) {
                        throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map the data pages for notification queues: "
                                + e.getMessage(), e);
                    }
                    queuePages = pages;
                }
            }
        }
        return pages;
    }

    @Override
    public int notifyCount() {
        return (int) INT.getVolatile(control, regs + REG_NOTIFY_COUNT);
    }

    @Override
    public void awaitNotify(int observed, long timeoutNanos) {
        try (Arena arena = Arena.ofConfined()) {
            Posix.futexWait(control.asSlice(regs + REG_NOTIFY_COUNT, 4), observed, Math.max(0, timeoutNanos), arena.allocate(16, 8));
        }
    }

    /** Every node of a soft fabric is a process of this host: one monotonic clock, no skew, bound 0. */
    @Override
    public ClusterTime clusterTime() {
        return new ClusterTime(System.nanoTime(), 0, 0, ClusterTime.Unit.NANOSECONDS);
    }

    @Override
    public long errorCount() {
        return Integer.toUnsignedLong(readRegister(REG_ERROR_COUNT));
    }

    /**
     * Adds {@code n} to this node's error count register, shared by the node's processes and seen by status views: a
     * network backend built on this soft fabric counts what it lost there.
     */
    public void addErrors(int n) {
        INT.getAndAdd(control, regs + REG_ERROR_COUNT, n);
    }

    @Override
    public void releaseDeadNode(int n, long deadIncarnation) {
        if (n == node || n < 0 || n >= layout.maxNodes()) {
            return;
        }
        long block = layout.nodeBlock(n);
        long owner = (long) LONG.getVolatile(control, block + SF_NODE_OWNER);
        if (owner != 0 && SoftFabricGeometry.ownerIncarnation(owner) == deadIncarnation && LONG.compareAndSet(control, block + SF_NODE_OWNER, owner, 0L)) {
            clearPcts(n);
            INT.setVolatile(control, block + REG_NODE_ID, 0);
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
        for (MappedGrant g : new ArrayList<>(grants)) {
            release(g);
        }
        for (SoftRemoteWindow w : new ArrayList<>(remotes)) {
            releaseRemote(w);
        }
        local.locked(() -> {
            int other = local.otherLiveSlot(slot);
            long owner = (long) LONG.getVolatile(control, regs + SF_NODE_OWNER);
            boolean ours = owner != 0 && SoftFabricGeometry.ownerIncarnation(owner) == incarnation;
            if (other >= 0 && ours) { // the node stays with its other processes: the claim names one of them
                LONG.compareAndSet(control, regs + SF_NODE_OWNER, owner, SoftFabricGeometry.ownerWord(incarnation, local.pidOf(other)));
            } else if (ours) {
                clearPcts(node);
                INT.setVolatile(control, regs + REG_NODE_ID, 0);
                LONG.compareAndSet(control, regs + SF_NODE_OWNER, owner, 0L);
            }
            if (local.pidOf(slot) == local.pid()) { // not a new incarnation's row after a false death
                local.unregister(slot);
            }
            return null;
        });
        closed = true;
        queueArena.close();
        stripes.close();
        local.close();
        controlArena.close();
        Posix.close(fd);
    }

}
