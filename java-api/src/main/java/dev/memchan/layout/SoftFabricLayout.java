package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * Geometry of one soft fabric file (docs/soft-fabric.md): its three free parameters, the page count
 * and the section offsets, all computed by the generated {@link SoftFabricGeometry} (the formulas of
 * regmap/memchan.toml that the C tools and the ivshmem driver use too).
 *
 * <pre>
 *  0             HEADER_SIZE                                DATA_OFFSET                   FILE_SIZE
 * +-------------+------------+------------+-----+------------+-----------+-----+-----------+
 * | header 4 KiB| node blk 0 | ... | node blk N | stripe 0 | ... | stripe S-1 | page 0 | ... | page P-1 |
 * +-------------+------------+-----+------------+----------+-----+------------+--------+-----+----------+
 *
 *  node block:  +0 registers (BAR0 offsets, 4 KiB) | +0x1000 TX PCT u32[P] | RX PCT u64[P] | page counters
 *  counter stripe (one writer, owner in the header's STRIPE_OWNERS): READS, ATOMICS of every page
 * </pre>
 *
 * Every section is page aligned so it can be mapped on its own. Header field offsets are the
 * generated {@code Regs.SF_HDR_*} constants.
 */
public final class SoftFabricLayout {
    public static final int MIN_NODES = SF_MIN_NODES;

    private final long fileSize;
    private final int pageSize;
    private final int maxNodes;
    private final int pageCount;
    private final long nodeBlockSize;
    private final long dataOffset;
    private final long rxPctOffset;
    private final long pageCountersOffset;
    private final long stripesOffset;
    private final long stripeSize;

    private SoftFabricLayout(long fileSize, int pageSize, int maxNodes, int pageCount) {
        this.fileSize = fileSize;
        this.pageSize = pageSize;
        this.maxNodes = maxNodes;
        this.pageCount = pageCount;
        this.rxPctOffset = SoftFabricGeometry.rxPctOffset(pageSize, pageCount);
        this.pageCountersOffset = SoftFabricGeometry.pageCountersOffset(pageSize, pageCount);
        this.nodeBlockSize = SoftFabricGeometry.nodeBlockSize(pageSize, pageCount);
        this.stripesOffset = SoftFabricGeometry.stripesOffset(pageSize, pageCount, maxNodes);
        this.stripeSize = SoftFabricGeometry.stripeSize(pageSize, pageCount);
        this.dataOffset = SoftFabricGeometry.dataOffset(pageSize, pageCount, maxNodes);
    }

    /** Why these creation parameters are invalid, or null. */
    public static String problem(long fileSize, int pageSize, int maxNodes) {
        return SoftFabricGeometry.problem(fileSize, pageSize, maxNodes);
    }

    /** Layout a creator would write for these parameters (validated). */
    public static SoftFabricLayout forCreation(long fileSize, int pageSize, int maxNodes) {
        String problem = problem(fileSize, pageSize, maxNodes);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new SoftFabricLayout(fileSize, pageSize, maxNodes, SoftFabricGeometry.pageCount(fileSize, pageSize, maxNodes));
    }

    /** Layout implied by the parameters a header states; the caller compares the rest. */
    public static SoftFabricLayout of(long fileSize, int pageSize, int maxNodes, int pageCount) {
        return new SoftFabricLayout(fileSize, pageSize, maxNodes, pageCount);
    }

    /** Whether this layout's data pages fit in its file. */
    public boolean fits() {
        return SoftFabricGeometry.fits(fileSize, pageSize, pageCount, maxNodes);
    }

    /** Offset of the RX PCT in a node block. */
    public long rxPctOffset() {
        return rxPctOffset;
    }

    /** Offset of the page counters in a node block. */
    public long pageCountersOffset() {
        return pageCountersOffset;
    }

    public long fileSize() {
        return fileSize;
    }

    public int pageSize() {
        return pageSize;
    }

    public int maxNodes() {
        return maxNodes;
    }

    public int pageCount() {
        return pageCount;
    }

    public long nodeAreaOffset() {
        return SF_HEADER_SIZE;
    }

    public long nodeBlockSize() {
        return nodeBlockSize;
    }

    public long dataOffset() {
        return dataOffset;
    }

    /** File offset of node {@code node}'s register block. */
    public long nodeBlock(int node) {
        return SF_HEADER_SIZE + node * nodeBlockSize;
    }

    /** File offset of node {@code node}'s transmit PCT entry for {@code page}. */
    public long txPct(int node, int page) {
        return nodeBlock(node) + SF_NODE_TX_PCT + (long) TX_PCT_ENTRY_SIZE * page;
    }

    /** File offset of node {@code node}'s receive PCT entry for {@code page}. */
    public long rxPct(int node, int page) {
        return nodeBlock(node) + rxPctOffset + (long) RX_PCT_ENTRY_SIZE * page;
    }

    /** File offset of the counters of {@code page} in its home {@code node}'s block (fields {@code SF_PAGE_COUNTER_*}). */
    public long pageCounters(int node, int page) {
        return nodeBlock(node) + pageCountersOffset + (long) SF_PAGE_COUNTER_SIZE * page;
    }

    /** Offset of counter stripe 0. */
    public long stripesOffset() {
        return stripesOffset;
    }

    /** Size of one counter stripe. */
    public long stripeSize() {
        return stripeSize;
    }

    /** File offset of the counts of {@code page} in counter stripe {@code stripe} (fields {@code SF_PAGE_COUNTER_READS, _ATOMICS}). */
    public long stripeEntry(int stripe, int page) {
        return stripesOffset + stripe * stripeSize + (long) SF_STRIPE_ENTRY_SIZE * page;
    }

    /** File offset of counter stripe {@code stripe}'s owner word in the header (fields {@code SF_STRIPE_OWNER_*}). */
    public static long stripeOwner(int stripe) {
        return SF_HDR_STRIPE_OWNERS + (long) Long.BYTES * stripe;
    }

    /** File offset of network page {@code page}. */
    public long dataPage(int page) {
        return dataOffset + (long) page * pageSize;
    }

    @Override
    public String toString() {
        return "SoftFabricLayout[fileSize=" + fileSize + ", pageSize=" + pageSize + ", maxNodes=" + maxNodes
                + ", pageCount=" + pageCount + ", nodeBlockSize=" + nodeBlockSize + ", dataOffset=" + dataOffset + "]";
    }
}
