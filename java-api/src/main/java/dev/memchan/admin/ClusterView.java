package dev.memchan.admin;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.MULTICAST_GROUPS;
import static dev.memchan.layout.Regs.SYS_DIR_GENERATION;
import static dev.memchan.layout.Regs.SYS_PAGES;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A read-only view of a fabric's cluster state: membership, the region directory (regions, lock
 * sets, static carve-outs) and the multicast groups, decoded from any mapping of the system pages
 * (network pages 0..{@code SYS_PAGES - 1}): a receive grant of an adapter, or the soft fabric file.
 * Every call reads the pages anew; the view never writes.
 */
public final class ClusterView {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment pages;
    private final int pageSize;
    private final int maxNodes;

    private ClusterView(MemorySegment pages, int pageSize, int maxNodes) {
        this.pages = pages;
        this.pageSize = pageSize;
        this.maxNodes = maxNodes;
    }

    /**
     * The view of {@code systemPages} (network page 0 at offset 0, at least {@code SYS_PAGES} pages of
     * {@code pageSize} bytes) for a fabric of {@code maxNodes} nodes.
     */
    public static ClusterView of(MemorySegment systemPages, int pageSize, int maxNodes) {
        if (pageSize <= 0 || systemPages.byteSize() < (long) SYS_PAGES * pageSize || maxNodes < 1 || maxNodes > 32) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a cluster view needs the " + SYS_PAGES + " system pages of "
                    + pageSize + " bytes (got " + systemPages.byteSize() + " bytes) and 1..32 nodes (got " + maxNodes + ")");
        }
        return new ClusterView(systemPages, pageSize, maxNodes);
    }

    public int maxNodes() {
        return maxNodes;
    }

    public MemberSlot member(int node) {
        if (node < 0 || node >= maxNodes) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + node + " out of range 0.." + (maxNodes - 1));
        }
        return MemberSlot.read(pages, pageSize, node);
    }

    /** Node mask of the members whose slot says alive. */
    public int members() {
        int mask = 0;
        for (int n = 0; n < maxNodes; n++) {
            if (MemberSlot.read(pages, pageSize, n).alive()) {
                mask |= 1 << n;
            }
        }
        return mask;
    }

    /** The directory's generation: it changes with every allocation, release and membership change. */
    public long generation() {
        return (long) LONG.getVolatile(pages, SystemPagesDescriptor.directory(pageSize) + SYS_DIR_GENERATION);
    }

    public int multicastGroup(int group) {
        if (group < 0 || group >= MULTICAST_GROUPS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "multicast group " + group + " out of range 0.." + (MULTICAST_GROUPS - 1));
        }
        return (int) INT.getVolatile(pages, SystemPagesDescriptor.mcastGroup(pageSize, group));
    }

    /** Every allocated entry: regions, lock sets and static carve-outs. */
    public List<DirectoryEntry> regions() {
        List<DirectoryEntry> out = new ArrayList<>();
        for (int i = 0; i < SystemPagesDescriptor.regionCapacity(pageSize); i++) {
            DirectoryEntry e = DirectoryEntry.read(pages, pageSize, i);
            if (!e.isFree()) {
                out.add(e);
            }
        }
        return out;
    }

    /** The static carve-outs alone. */
    public List<DirectoryEntry> carveOuts() {
        return regions().stream().filter(DirectoryEntry::isStatic).toList();
    }
}
