package dev.memchan.tools.mcctl;

import dev.memchan.admin.PctWrite;
import dev.memchan.admin.DirectoryEntry;

import java.util.List;
import java.util.Map;

/**
 * What mcctl operates on: the adapters of a fabric. On the soft fabric ({@code shm:NAME}) every node's
 * emulated adapter is visible without joining; on a device ({@code dev:/dev/memchanN}) only this host's
 * adapter is. Every command goes through this interface, so commands do not change with the backend.
 */
public interface Target extends AutoCloseable {

    /** Membership of one node as the fabric sees it. */
    record NodeInfo(int node, boolean claimed, boolean live, long pid, long incarnation, int memberState, long heartbeat) {
        public String state() {
            if (!claimed) {
                return memberState == 0 ? "free" : "leaving";
            }
            return live ? (memberState == 1 ? "joined" : "joining") : "stale";
        }
    }

    String location();

    /** "soft" or "dev". */
    String kind();

    /** What a tick of the GLOBAL_TIME register reads in (adapters: link cycles). */
    default dev.memchan.ClusterTime.Unit clockUnit() {
        return dev.memchan.ClusterTime.Unit.LINK_CYCLES;
    }

    int maxNodes();

    int pageSize();

    int pageCount();

    /** Node IDs whose adapters this target can read (all on the soft fabric, this host's on a device). */
    int[] adapters();

    int readRegister(int node, int offset);

    int txPct(int node, int page);

    long rxPct(int node, int page);

    /**
     * {@code node}'s PCT entries of pages {@code firstPage} .. {@code firstPage + tx.length - 1} into {@code tx}
     * and {@code rx}. A device reads each page's pair in one request (on a board each read is BAR accesses).
     */
    default void readPct(int node, int firstPage, int[] tx, long[] rx) {
        for (int i = 0; i < tx.length; i++) {
            tx[i] = txPct(node, firstPage + i);
            rx[i] = rxPct(node, firstPage + i);
        }
    }

    /**
     * Both page counters of {@code node} as the home of every page (remote reads and atomics served) into
     * {@code reads} and {@code atomics} (arrays of {@link #pageCount()}), each page read once; false, the
     * arrays untouched, where the backend has no page counters.
     */
    boolean readPageCounters(int node, long[] reads, long[] atomics);

    NodeInfo node(int node);

    int multicastGroup(int group);

    long generation();

    List<DirectoryEntry> regions();

    /** Every reason the batch would be refused (empty when it is valid; the library's rules); writes nothing. */
    List<String> pctProblems(List<PctWrite> batch);

    /** The library's view of the adapters underneath: PCT writes go through it ({@link Targets#writePct}). */
    dev.memchan.admin.AdapterView view();

    /** Identity lines for status: fabric ID, file, creation time (soft) or device (dev). */
    Map<String, Object> identity();

    @Override
    void close();
}
