package dev.memchan.internal.dev;

import dev.memchan.ClusterTime;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.MemberSlot;
import dev.memchan.admin.NodeStatus;
import dev.memchan.admin.PctWrite;
import dev.memchan.internal.PctRules;
import dev.memchan.internal.PctTables;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.layout.RxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.Location;

import java.util.List;

import static dev.memchan.layout.Regs.RX_PCT_REMAP_ADDR_MASK;
import static dev.memchan.layout.Regs.RX_PCT_REMAP_EN_MASK;
import static dev.memchan.layout.Regs.SYS_PAGES;

/**
 * A device's {@link AdapterView}: this host's adapter through the driver, opened alone (no cluster join).
 * Membership and directory are read through a receive grant of the system pages, which the driver shares
 * with the node's other users; PCT writes go through the driver by the library's one rule set
 * ({@link PctRules}), the driver checking each entry again.
 */
final class DevAdapterView implements AdapterView, PctTables {
    private final DevBackend adapter;
    private final Backend.Grant systemGrant;
    private final ClusterView system;

    private DevAdapterView(DevBackend adapter) {
        this.adapter = adapter;
        this.systemGrant = adapter.grantReceive(0, SYS_PAGES, RxPct.encode(true, false));
        this.system = ClusterView.of(systemGrant.segment(), adapter.pageSize(), adapter.maxNodes());
    }

    static DevAdapterView open(Location location) {
        NativeAccess.require();
        if (AdapterGlob.matches(location)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "fabric location '" + location
                    + "': an administrator's view is of one adapter (dev:/dev/memchanN), not a pattern");
        }
        DevBackend adapter = DevBackend.open(location.path(), -1);
        try {
            return new DevAdapterView(adapter);
        } catch (RuntimeException e) {
            adapter.close();
            throw e;
        }
    }

    @Override
    public String location() {
        return adapter.location();
    }

    @Override
    public String kind() {
        return "dev";
    }

    @Override
    public int maxNodes() {
        return adapter.maxNodes();
    }

    @Override
    public int pageSize() {
        return adapter.pageSize();
    }

    @Override
    public int pageCount() {
        return adapter.pageCount();
    }

    @Override
    public int[] adapters() {
        return new int[]{adapter.nodeId()};
    }

    @Override
    public ClusterTime.Unit clockUnit() {
        return adapter.globalTimeUnit();
    }

    private void own(int node) {
        String problem = nodeProblem(node);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, problem + ": run mcctl there");
        }
    }

    @Override
    public int readRegister(int node, int offset) {
        own(node);
        return adapter.readRegister(offset);
    }

    @Override
    public int txPct(int node, int page) {
        own(node);
        return adapter.txPct(page);
    }

    @Override
    public long rxPct(int node, int page) {
        own(node);
        return adapter.rxPct(page);
    }

    @Override
    public void readPct(int node, int firstPage, int[] tx, long[] rx) {
        own(node);
        adapter.readPct(firstPage, tx, rx);
    }

    @Override
    public boolean readPageCounters(int node, long[] reads, long[] atomics) {
        own(node);
        try {
            adapter.readPageCounters(0, reads, atomics);
            return true;
        } catch (MemchanException e) {
            if (e.kind() == Kind.UNSUPPORTED) {
                return false;
            }
            throw e;
        }
    }

    /** The membership slot alone: a node whose slot says alive is claimed and live (the view sees no process table). */
    @Override
    public NodeStatus node(int node) {
        MemberSlot slot = system.member(node);
        return new NodeStatus(node, slot.alive(), slot.alive(), slot.pid(), slot.incarnation(), slot.state(), slot.heartbeat());
    }

    @Override
    public ClusterView cluster() {
        return system;
    }

    // ---- PCT writes (PctRules) ------------------------------------------------------------------

    @Override
    public List<String> problems(List<PctWrite> batch) {
        return PctRules.problems(this, batch);
    }

    @Override
    public synchronized void write(List<PctWrite> batch) {
        PctRules.write(this, batch);
    }

    @Override
    public String nodeProblem(int node) {
        return node == adapter.nodeId() ? null
                : "node " + node + " is another host's adapter (this host's adapter is node " + adapter.nodeId() + ")";
    }

    @Override
    public String txProblem(int node, int entry) {
        return adapter.txProblem(entry);
    }

    @Override
    public boolean visible(int node) {
        return node == adapter.nodeId();
    }

    @Override
    public List<DirectoryEntry> regions() {
        return system.regions();
    }

    @Override
    public void writeTx(int node, int page, int entry) {
        adapter.writeTxPct(page, entry);
    }

    /**
     * A receive entry as the driver takes it: remapping is the driver's (it adds its own and refuses a
     * written one), and an entry read back carries it (a board's driver receives every page, so put-back
     * values of unused pages are remapped too).
     */
    @Override
    public void writeRx(int node, int page, long entry) {
        adapter.writeRxPct(page, entry & ~(RX_PCT_REMAP_EN_MASK | RX_PCT_REMAP_ADDR_MASK));
    }

    @Override
    public void close() {
        try {
            systemGrant.close();
        } finally {
            adapter.close();
        }
    }
}
