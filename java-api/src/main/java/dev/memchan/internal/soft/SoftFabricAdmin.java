package dev.memchan.internal.soft;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.MemberSlot;
import dev.memchan.admin.NodeStatus;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.internal.Liveness;
import dev.memchan.internal.PctRules;
import dev.memchan.internal.PctTables;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.SoftFabricLayout;
import dev.memchan.spi.Location;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.List;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An administrator's view of a soft fabric file that claims no node (mcctl): every node block's
 * registers, OWNER word and PCTs, the membership and directory system pages (read-only), and PCT writes
 * into a joined node's block by the library's one rule set ({@link PctRules}).
 */
public final class SoftFabricAdmin implements SoftFabricView, PctTables {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final String location;
    private final Path file;
    private final int fd;
    private final long fabricId;
    private final SoftFabricLayout layout;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment control;
    private final ClusterView systemPages;
    private boolean closed;

    private SoftFabricAdmin(String location, Path file, SoftFabricFile.Opened opened) {
        this.location = location;
        this.file = file;
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

    /** Opens the soft fabric {@code shm:NAME} after validating its file. */
    static SoftFabricAdmin open(Location location) {
        NativeAccess.require();
        Path file = SoftFabricFile.pathOf(location.path());
        SoftFabricFile.Opened opened = SoftFabricFile.open(file);
        try {
            return new SoftFabricAdmin(location.toString(), file, opened);
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
    public String kind() {
        return "soft";
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

    /** Every node's emulated adapter is in the file. */
    @Override
    public int[] adapters() {
        return java.util.stream.IntStream.range(0, layout.maxNodes()).toArray();
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
    public Path file() {
        return file;
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

    private long ownerHostId(int node) {
        checkNode(node);
        return (long) LONG.getVolatile(control, layout.nodeBlock(node) + SF_NODE_HOST_ID);
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

    /** Claimed by its block's OWNER word, live when {@link #joined}; the slot's state and heartbeat beside. */
    @Override
    public NodeStatus node(int node) {
        long owner = owner(node);
        MemberSlot slot = systemPages.member(node);
        return new NodeStatus(node, owner != 0, joined(node), SoftFabricGeometry.ownerPid(owner),
                SoftFabricGeometry.ownerIncarnation(owner), slot.state(), slot.heartbeat());
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

    @Override
    public boolean readPageCounters(int node, long[] reads, long[] atomics) {
        for (int p = 0; p < reads.length; p++) {
            reads[p] = pageCounter(node, p, SF_PAGE_COUNTER_READS);
            atomics[p] = pageCounter(node, p, SF_PAGE_COUNTER_ATOMICS);
        }
        return true;
    }

    // ---- system pages (read-only) --------------------------------------------------------------

    @Override
    public ClusterView cluster() {
        return systemPages;
    }

    @Override
    public List<DirectoryEntry> regions() {
        return systemPages.regions();
    }

    // ---- PCT writes (PctRules) ------------------------------------------------------------------

    @Override
    public List<String> problems(List<PctWrite> batch) {
        return PctRules.problems(this, batch);
    }

    @Override
    public synchronized void write(List<PctWrite> batch) {
        ensureOpen();
        PctRules.write(this, batch);
    }

    @Override
    public String nodeProblem(int node) {
        return joined(node) ? null : "node " + node + " of " + location + " is not joined (no live process holds it): "
                + "start it with 'mcctl node join --node " + node + "' first";
    }

    @Override
    public String txProblem(int node, int entry) {
        return SoftFabricBackend.txProblem(entry, layout.maxNodes());
    }

    @Override
    public boolean visible(int node) {
        return true;
    }

    @Override
    public void writeTx(int node, int page, int entry) {
        INT.setVolatile(control, layout.txPct(node, page), entry);
    }

    @Override
    public void writeRx(int node, int page, long entry) {
        LONG.setVolatile(control, layout.rxPct(node, page), entry);
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
