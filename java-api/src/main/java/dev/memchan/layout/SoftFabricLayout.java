package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * Geometry of a soft fabric file (docs/soft-fabric.md), computed from its three free parameters.
 *
 * <pre>
 *  0             HEADER_SIZE                                DATA_OFFSET                   FILE_SIZE
 * +-------------+------------+------------+-----+------------+-----------+-----+-----------+
 * | header 4 KiB| node blk 0 | node blk 1 | ... | node blk N | page 0    | ... | page P-1  |
 * +-------------+------------+------------+-----+------------+-----------+-----+-----------+
 *
 *  node block:  +0 registers (BAR0 offsets, 4 KiB) | +0x1000 TX PCT u32[P] | RX PCT u64[P]
 * </pre>
 *
 * Every section is page aligned so it can be mapped on its own. Header field offsets are the
 * generated {@code Regs.SF_HDR_*} constants.
 */
public final class SoftFabricLayout {
    public static final int MIN_NODES = 2;

    private final long fileSize;
    private final int pageSize;
    private final int maxNodes;
    private final int pageCount;
    private final long nodeBlockSize;
    private final long dataOffset;
    private final long rxPctOffset;

    private SoftFabricLayout(long fileSize, int pageSize, int maxNodes, int pageCount) {
        this.fileSize = fileSize;
        this.pageSize = pageSize;
        this.maxNodes = maxNodes;
        this.pageCount = pageCount;
        this.rxPctOffset = SF_NODE_TX_PCT + align((long) TX_PCT_ENTRY_SIZE * pageCount, pageSize);
        this.nodeBlockSize = rxPctOffset + align((long) RX_PCT_ENTRY_SIZE * pageCount, pageSize);
        this.dataOffset = SF_HEADER_SIZE + maxNodes * nodeBlockSize;
    }

    /** Why these creation parameters are invalid, or null. */
    public static String problem(long fileSize, int pageSize, int maxNodes) {
        if (pageSize != 4096 && pageSize != 8192) {
            return "page size must be 4096 or 8192, not " + pageSize;
        }
        if (maxNodes < MIN_NODES || maxNodes > MAX_NODES) {
            return "max nodes must be " + MIN_NODES + ".." + MAX_NODES + ", not " + maxNodes;
        }
        if (fileSize < SF_MIN_FILE_SIZE || Long.bitCount(fileSize) != 1) {
            return "fabric size must be a power of two of at least " + SF_MIN_FILE_SIZE + " bytes, not " + fileSize;
        }
        if (fileSize > (1L << 34)) {
            return "fabric size above 16 GiB is not supported (" + fileSize + ")";
        }
        int pages = fitPages(fileSize, pageSize, maxNodes);
        if (pages <= SYS_PAGES) {
            return "fabric of " + fileSize + " bytes leaves no network pages for users after " + maxNodes + " node blocks";
        }
        return null;
    }

    /** Layout a creator would write for these parameters (validated). */
    public static SoftFabricLayout forCreation(long fileSize, int pageSize, int maxNodes) {
        String problem = problem(fileSize, pageSize, maxNodes);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new SoftFabricLayout(fileSize, pageSize, maxNodes, fitPages(fileSize, pageSize, maxNodes));
    }

    /** Layout implied by the parameters a header states; the caller compares the rest. */
    public static SoftFabricLayout of(long fileSize, int pageSize, int maxNodes, int pageCount) {
        return new SoftFabricLayout(fileSize, pageSize, maxNodes, pageCount);
    }

    private static int fitPages(long fileSize, int pageSize, int maxNodes) {
        int lo = 0;
        int hi = MAX_PAGES;
        while (lo < hi) { // largest count that fits
            int mid = (lo + hi + 1) >>> 1;
            SoftFabricLayout l = new SoftFabricLayout(fileSize, pageSize, maxNodes, mid);
            if (l.dataOffset + (long) mid * pageSize <= fileSize) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    static long align(long v, long a) {
        return (v + a - 1) / a * a;
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
