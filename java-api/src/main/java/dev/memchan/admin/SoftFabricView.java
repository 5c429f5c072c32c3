package dev.memchan.admin;

import dev.memchan.internal.soft.SoftFabricAdmin;
import dev.memchan.layout.SoftFabricLayout;

import java.util.List;

/**
 * An administrator's view of a soft fabric file ({@code shm:NAME}) that claims no node: every node
 * block's registers, OWNER word and PCTs, the cluster's system pages (read-only, {@link #cluster()}),
 * and PCT writes into a joined node's block, validated as a whole before the first entry is written so
 * a refused batch leaves every PCT as it was.
 */
public interface SoftFabricView extends AutoCloseable {

    /** Opens the soft fabric {@code shm:NAME} ({@code name} is the part after the colon) after validating its header. */
    static SoftFabricView open(String name) {
        return SoftFabricAdmin.open(name);
    }

    String location();

    SoftFabricLayout layout();

    long fabricId();

    /** CLOCK_REALTIME nanoseconds of the file's creation. */
    long createdNanos();

    /** A 32-bit register of node {@code node}'s emulated adapter, at its BAR0 offset. */
    int readRegister(int node, int offset);

    /** The OWNER word of node {@code node}'s block: 0 when free (see {@code SoftFabricGeometry.ownerPid}). */
    long owner(int node);

    /** Node {@code node} is claimed by a process not proven dead (the view does not wait for heartbeats). */
    boolean joined(int node);

    int txPct(int node, int page);

    long rxPct(int node, int page);

    /**
     * A page counter of node {@code node} as the home of {@code page}, unsigned: {@code counter} is
     * {@code Regs.SF_PAGE_COUNTER_READS} (remote reads served) or {@code Regs.SF_PAGE_COUNTER_ATOMICS}.
     */
    long pageCounter(int node, int page, int counter);

    /** The membership, directory and multicast groups of the file's system pages. */
    ClusterView cluster();

    /**
     * Every reason {@code batch} would be refused (empty when valid): node joined, page neither a system
     * page nor a page of an allocated region, entries well formed, one route per network page.
     */
    List<String> problems(List<PctWrite> batch);

    /** Validates the whole batch, then writes it; INVALID_ARGUMENT, writing nothing, on any problem. */
    void write(List<PctWrite> batch);

    @Override
    void close();
}
