package dev.memchan.internal.soft;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.Liveness;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.MemberSlot;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.SoftFabricLayout;
import dev.memchan.layout.TxPct;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An administrator's view of a soft fabric file that claims no node (mcctl): every node block's
 * registers, OWNER word and PCTs, the membership and directory system pages (read-only), and PCT writes
 * into a joined node's block with the validation {@link SoftFabricBackend} applies to its own writes.
 * A batch of writes is validated as a whole (against the fabric and against itself) before the first
 * entry is written, so a refused batch leaves every PCT as it was.
 */
public final class SoftFabricAdmin implements SoftFabricView {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final String location;
    private final int fd;
    private final long fabricId;
    private final SoftFabricLayout layout;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment control;
    private final ClusterView systemPages;
    private boolean closed;

    private SoftFabricAdmin(String location, SoftFabricFile.Opened opened) {
        this.location = location;
        this.fd = opened.fd();
        this.layout = opened.layout();
        this.fabricId = opened.fabricId();
        try {
            this.control = Posix.mmap(fd, 0, layout.dataOffset(), true, arena);
            this.systemPages = ClusterView.of(Posix.mmap(fd, layout.dataPage(0), (long) SYS_PAGES * layout.pageSize(), false, arena),
                    layout.pageSize(), layout.maxNodes());
        } catch (ErrnoException e) {
            arena.close();
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map the fabric: " + e.getMessage(), e);
        }
    }

    /** Opens the soft fabric {@code shm:NAME} ({@code name} is the part after the colon) after validating it. */
    public static SoftFabricAdmin open(String name) {
        dev.memchan.internal.nativeio.NativeAccess.require();
        SoftFabricFile.Opened opened = SoftFabricFile.open(SoftFabricFile.pathOf(name));
        try {
            return new SoftFabricAdmin("shm:" + name, opened);
        } catch (RuntimeException e) {
            Posix.close(opened.fd());
            throw e;
        }
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public SoftFabricLayout layout() {
        return layout;
    }

    @Override
    public long fabricId() {
        return fabricId;
    }

    @Override
    public long createdNanos() {
        return (long) LONG.getVolatile(control, (long) SF_HDR_CREATED_NS);
    }

    // ---- node blocks ---------------------------------------------------------------------------

    private void checkNode(int node) {
        if (node < 0 || node >= layout.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + node + " out of range 0.." + (layout.maxNodes() - 1)
                    + " for " + location);
        }
    }

    private void checkPage(int page) {
        if (page < 0 || page >= layout.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + page + " is outside the window 0.." + (layout.pageCount() - 1)
                    + " of " + location);
        }
    }

    /** A 32-bit register of node {@code node}'s emulated adapter, at its BAR0 offset. */
    @Override
    public int readRegister(int node, int offset) {
        checkNode(node);
        if (offset < 0 || offset > SF_NODE_REGS_SIZE - 4 || (offset & 3) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("register offset 0x%x outside the register block", offset));
        }
        return (int) INT.getVolatile(control, layout.nodeBlock(node) + offset);
    }

    /** The OWNER word: 0 when free, else SoftFabricGeometry.ownerWord(incarnation, pid). */
    @Override
    public long owner(int node) {
        checkNode(node);
        return (long) LONG.getVolatile(control, layout.nodeBlock(node) + SF_NODE_OWNER);
    }

    public long ownerHostId(int node) {
        checkNode(node);
        return (long) LONG.getVolatile(control, layout.nodeBlock(node) + SF_NODE_HOST_ID);
    }

    /** True when the owner runs on this host (same boot ID and PID namespace), so its pid can be checked. */
    public boolean ownerOnThisHost(int node) {
        return ownerHostId(node) == HostIdentity.hostId();
    }

    /**
     * True when node {@code node} is claimed by a process not proven dead ({@link Liveness#mayBeAlive}:
     * the admin view does not wait to observe a heartbeat).
     */
    @Override
    public boolean joined(int node) {
        long owner = owner(node);
        return owner != 0 && Liveness.mayBeAlive(ownerHostId(node), SoftFabricGeometry.ownerPid(owner));
    }

    @Override
    public int txPct(int node, int page) {
        checkNode(node);
        checkPage(page);
        return (int) INT.getVolatile(control, layout.txPct(node, page));
    }

    @Override
    public long rxPct(int node, int page) {
        checkNode(node);
        checkPage(page);
        return (long) LONG.getVolatile(control, layout.rxPct(node, page));
    }

    @Override
    public long pageCounter(int node, int page, int counter) {
        checkNode(node);
        checkPage(page);
        if (counter != SF_PAGE_COUNTER_READS && counter != SF_PAGE_COUNTER_ATOMICS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "no page counter at offset " + counter);
        }
        return Integer.toUnsignedLong(CounterStripes.read(control, layout, node, page, counter));
    }

    // ---- system pages (read-only) --------------------------------------------------------------

    @Override
    public ClusterView cluster() {
        return systemPages;
    }

    public MemberSlot member(int node) {
        checkNode(node);
        return systemPages.member(node);
    }

    public long generation() {
        return systemPages.generation();
    }

    /** Node mask of multicast group {@code group} as the directory holds it. */
    public int multicastGroup(int group) {
        return systemPages.multicastGroup(group);
    }

    public List<DirectoryEntry> regions() {
        return systemPages.regions();
    }

    // ---- PCT writes -----------------------------------------------------------------------------

    /**
     * Why this batch cannot be written, or null. Checks, for every write: node in range and joined, page
     * inside the window and neither a system page nor a page of a region allocated in the directory (the
     * directory's attach path owns those entries), the entry's encoding ({@link SoftFabricBackend}'s
     * checks), and one route per network page over the state the whole batch would leave.
     */
    @Override
    public List<String> problems(List<PctWrite> batch) {
        List<String> out = new ArrayList<>();
        Map<NodePage, Integer> pendingTx = new HashMap<>();
        Map<NodePage, Long> pendingRx = new HashMap<>();
        List<DirectoryEntry> regions = regions();
        for (PctWrite w : batch) {
            try {
                checkNode(w.node());
                checkPage(w.page());
            } catch (MemchanException e) {
                out.add(e.getMessage());
                continue;
            }
            if (!joined(w.node())) {
                out.add("node " + w.node() + " of " + location + " is not joined (no live process holds it): "
                        + "start it with 'mcctl node join --node " + w.node() + "' first");
                continue;
            }
            if (w.page() < SYS_PAGES) {
                out.add("page " + w.page() + " is a system page (0.." + (SYS_PAGES - 1) + ": cluster lock, membership, directory); "
                        + "the cluster service owns its PCT entries");
                continue;
            }
            String owned = DirectoryEntry.ownerProblem(regions, w.page());
            if (owned != null) {
                out.add(owned);
                continue;
            }
            NodePage k = new NodePage(w.node(), w.page());
            if (w.tx() != null) {
                Integer before = pendingTx.put(k, w.tx());
                if (before != null && !before.equals(w.tx())) {
                    out.add("page " + w.page() + " of node " + w.node() + " is set twice, to " + TxPct.describe(before) + " and to "
                            + TxPct.describe(w.tx()));
                }
            }
            if (w.rx() != null) {
                Long before = pendingRx.put(k, w.rx());
                if (before != null && !before.equals(w.rx())) {
                    out.add("receive entry of page " + w.page() + " of node " + w.node() + " is set twice with different values");
                }
                try {
                    SoftFabricBackend.checkRxEntry(w.page(), w.rx());
                } catch (MemchanException e) {
                    out.add(e.getMessage());
                }
            }
        }
        if (!out.isEmpty()) {
            return out;
        }
        for (Map.Entry<NodePage, Integer> e : pendingTx.entrySet()) {
            int node = e.getKey().node();
            int page = e.getKey().page();
            try {
                SoftFabricBackend.checkTxEntry(page, e.getValue(), node, layout.maxNodes(),
                        n -> pendingTx.getOrDefault(new NodePage(n, page), txPct(n, page)));
            } catch (MemchanException ex) {
                out.add(ex.getMessage());
            }
        }
        return out;
    }

    /** A PCT entry's place in a batch of writes. */
    private record NodePage(int node, int page) {
    }

    /** Validates the whole batch ({@link #problems}) and writes it; throws INVALID_ARGUMENT, writing nothing, on any problem. */
    @Override
    public synchronized void write(List<PctWrite> batch) {
        ensureOpen();
        List<String> problems = problems(batch);
        if (!problems.isEmpty()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, problems.getFirst()
                    + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more problems)" : "") + "; nothing was changed");
        }
        for (PctWrite w : batch) {
            if (w.tx() != null) {
                INT.setVolatile(control, layout.txPct(w.node(), w.page()), (int) w.tx());
            }
            if (w.rx() != null) {
                LONG.setVolatile(control, layout.rxPct(w.node(), w.page()), (long) w.rx());
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, location + " admin view is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            arena.close();
            Posix.close(fd);
        }
    }
}
