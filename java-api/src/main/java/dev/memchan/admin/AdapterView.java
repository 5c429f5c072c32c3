package dev.memchan.admin;

import dev.memchan.ClusterTime;

import java.util.List;

/**
 * An administrator's view of the adapters of one fabric location that claims no node ({@link FabricAdmin#view}):
 * on the soft fabric every node's emulated adapter ({@link SoftFabricView}), on a device this host's adapter
 * alone. Registers, PCTs and page counters of the visible adapters, the cluster's system pages
 * ({@link #cluster()}, read-only), and PCT writes validated as a whole by one rule set on every backend
 * before the first entry is written, so a refused batch leaves every PCT as it was.
 */
public interface AdapterView extends AutoCloseable {
    /** The location, e.g. {@code shm:lab} or {@code dev:/dev/memchan0}. */
    String location();

    /** "soft" or "dev". */
    String kind();

    int maxNodes();

    int pageSize();

    /** Network pages of the window, including the system pages. */
    int pageCount();

    /** The node IDs whose adapters this view reads: every node of a soft fabric, this host's on a device. */
    int[] adapters();

    /** A 32-bit register of node {@code node}'s adapter, at its BAR0 offset. */
    int readRegister(int node, int offset);

    int txPct(int node, int page);

    long rxPct(int node, int page);

    /**
     * {@code node}'s PCT entries of pages {@code firstPage} .. {@code firstPage + tx.length - 1} into {@code tx}
     * and {@code rx} (arrays of one length).
     */
    default void readPct(int node, int firstPage, int[] tx, long[] rx) {
        for (int i = 0; i < tx.length; i++) {
            tx[i] = txPct(node, firstPage + i);
            rx[i] = rxPct(node, firstPage + i);
        }
    }

    /**
     * Both page counters of {@code node} as the home of every page (remote reads and atomics served) into
     * {@code reads} and {@code atomics} (arrays of {@link #pageCount()}); false, the arrays untouched, where
     * the adapter has no page counters.
     */
    boolean readPageCounters(int node, long[] reads, long[] atomics);

    /** What a tick of the adapters' GLOBAL_TIME register is. */
    default ClusterTime.Unit clockUnit() {
        return ClusterTime.Unit.LINK_CYCLES;
    }

    /**
     * Node {@code node} (0..{@link #maxNodes()} - 1) as this view sees it: on the soft fabric its block's OWNER
     * word says who holds it; on a device the membership slot alone does.
     */
    NodeStatus node(int node);

    /** The membership, directory and multicast groups of the fabric's system pages. */
    ClusterView cluster();

    /**
     * Every reason {@code batch} would be refused (empty when valid): node in range and its adapter writable
     * here (a soft-fabric node some live process holds; this host's adapter on a device), page inside the
     * window and neither a system page nor a page of a region allocated in the directory, entries well formed
     * for the adapter, no page of a node named twice with different entries, one route per network page over
     * the state the whole batch would leave.
     */
    List<String> problems(List<PctWrite> batch);

    /**
     * Validates the whole batch ({@link #problems}), then writes it; INVALID_ARGUMENT, writing nothing, on
     * any problem. An entry the adapter refuses all the same puts back every entry written before it.
     * Operators write through {@link ClusterAdmin#writePct}, which also keeps the directory's carve-outs.
     */
    void write(List<PctWrite> batch);

    @Override
    void close();
}
