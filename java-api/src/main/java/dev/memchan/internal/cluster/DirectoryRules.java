package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.*;

/**
 * The region directory's rules as pure functions of the system pages' contents (a segment with
 * network page 0 at offset 0) and their arguments: they read, never write, and hold no state, so they
 * are tested on heap segments. {@link RegionDirectory} applies them under the cluster lock.
 */
public final class DirectoryRules {
    private DirectoryRules() {
    }

    /** Every allocated entry (regions, lock sets, static carve-outs). */
    public static List<DirectoryEntry> allocated(MemorySegment sys, int pageSize) {
        List<DirectoryEntry> out = new ArrayList<>();
        for (int i = 0; i < SystemPagesCodec.regionCapacity(pageSize); i++) {
            DirectoryEntry e = DirectoryEntry.read(sys, pageSize, i);
            if (!e.isFree()) {
                out.add(e);
            }
        }
        return out;
    }

    /** The allocated entry under {@code key}, or null. */
    public static DirectoryEntry find(MemorySegment sys, int pageSize, long key) {
        for (DirectoryEntry e : allocated(sys, pageSize)) {
            if (e.key() == key) {
                return e;
            }
        }
        return null;
    }

    /** The first free entry's index, or -1 when the directory is full. */
    public static int freeEntryIndex(MemorySegment sys, int pageSize) {
        for (int i = 0; i < SystemPagesCodec.regionCapacity(pageSize); i++) {
            if (DirectoryEntry.read(sys, pageSize, i).isFree()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * First fit: the lowest first page of {@code pages} free pages in {@code SYS_PAGES .. pageCount-1},
     * around every allocated entry (static carve-outs included). Throws IN_USE naming the largest run.
     */
    public static int firstFit(MemorySegment sys, int pageSize, int pageCount, int pages, String location) {
        List<DirectoryEntry> used = new ArrayList<>(allocated(sys, pageSize));
        used.sort((a, b) -> Integer.compare(a.firstPage(), b.firstPage()));
        int cursor = SYS_PAGES;
        int largest = 0;
        for (DirectoryEntry u : used) {
            if (u.firstPage() - cursor >= pages) {
                return cursor;
            }
            largest = Math.max(largest, u.firstPage() - cursor);
            cursor = Math.max(cursor, u.endPage());
        }
        if (pageCount - cursor >= pages) {
            return cursor;
        }
        largest = Math.max(largest, pageCount - cursor);
        throw new MemchanException(Kind.IN_USE, "no room for " + pages + " pages on " + location
                + ": the largest free run is " + largest + " pages");
    }

    /** Node mask of the nodes 0..nodes-1. */
    public static int allNodes(int nodes) {
        return nodes == 32 ? -1 : (1 << nodes) - 1;
    }

    /** Destination node mask of transmitter {@code t} on route bits {@code route} (without its local copy). */
    public static int destinations(MemorySegment sys, int pageSize, int nodes, int route, int t) {
        int kind = SystemPagesDescriptor.regionRouteDestKind(route);
        int dest = SystemPagesDescriptor.regionRouteDest(route);
        return switch (kind) {
            case DEST_KIND_NODE -> 1 << dest;
            case DEST_KIND_BROADCAST -> allNodes(nodes) & ~(1 << t);
            default -> SystemPagesCodec.multicastGroup(sys, pageSize, dest) & ~(1 << t);
        };
    }

    /**
     * The routing invariant (docs/soft-fabric.md): every receiver is a destination of every transmitter
     * (or the transmitter's own local copy). Throws INVALID_ARGUMENT naming the first receiver missed.
     */
    public static void checkReachable(MemorySegment sys, int pageSize, int nodes, DirectoryEntry e, int txNodes,
                                      int txLoopback, int rxNodes, int route) {
        for (int t = 0; t < nodes; t++) {
            if ((txNodes & (1 << t)) == 0) {
                continue;
            }
            int reach = destinations(sys, pageSize, nodes, route, t) | (txLoopback & (1 << t));
            int missed = rxNodes & ~reach;
            if (missed != 0) {
                int r = Integer.numberOfTrailingZeros(missed);
                String why = r == t ? "node " + t + " would receive the pages it transmits without local copy"
                        : "node " + r + " receives the region but transmitter node " + t + " routes it to "
                        + Route.fromPct(route);
                throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x: %s; "
                        + "every receiver must be a destination of every transmitter", e.key(), why));
            }
        }
    }

    /**
     * {@code e} with node {@code me} added as a transmitter on route bits {@code routeBits}: one route
     * per network page (every transmitter uses the same), one local-copy choice per node, and every
     * receiver reachable.
     */
    public static DirectoryEntry withTransmitter(MemorySegment sys, int pageSize, int nodes, DirectoryEntry e, int me,
                                                 int routeBits, boolean loopback) {
        if (e.routed() && e.routeBits() != routeBits) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x is routed to %s by node(s) "
                    + "%s; one network page has one route, so it cannot also go to %s", e.key(),
                    Route.fromPct(e.route()), DirectoryEntry.nodes(e.txNodes()), Route.fromPct(routeBits)));
        }
        int bit = 1 << me;
        if ((e.txNodes() & bit) != 0 && ((e.txLoopback() & bit) != 0) != loopback) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x is already attached for "
                    + "transmit by this node %s local copy", e.key(), loopback ? "without" : "with"));
        }
        int txNodes = e.txNodes() | bit;
        int txLoop = loopback ? e.txLoopback() | bit : e.txLoopback() & ~bit;
        checkReachable(sys, pageSize, nodes, e, txNodes, txLoop, e.rxNodes(), routeBits);
        return e.withTransmit(txNodes, txLoop, routeBits | SYS_REGION_ROUTE_ROUTED_MASK);
    }

    /** {@code e} with node {@code me} added as a receiver, if every transmitter reaches it. */
    public static DirectoryEntry withReceiver(MemorySegment sys, int pageSize, int nodes, DirectoryEntry e, int me) {
        int rxNodes = e.rxNodes() | (1 << me);
        checkReachable(sys, pageSize, nodes, e, e.txNodes(), e.txLoopback(), rxNodes, e.routeBits());
        return e.withReceivers(rxNodes);
    }

    /** Multicast group {@code group} may change only while no routed region sends to it. */
    public static void checkGroupUnused(MemorySegment sys, int pageSize, int group) {
        for (DirectoryEntry e : allocated(sys, pageSize)) {
            if (e.routed() && SystemPagesDescriptor.regionRouteDestKind(e.route()) == DEST_KIND_MULTICAST
                    && SystemPagesDescriptor.regionRouteDest(e.route()) == group) {
                throw new MemchanException(Kind.IN_USE, String.format("multicast group %d is in use by region 0x%x; "
                        + "detach its transmitters first", group, e.key()));
            }
        }
    }

    /**
     * What a static carve-out of pages {@code first .. first+count-1} for {@code node} changes: the
     * existing carve-outs that gain {@code node} as a user, and the runs [start, end) no carve-out covers
     * yet, each to become a new one. Refused (IN_USE) if a page belongs to an allocated region.
     */
    public record StaticPlan(List<DirectoryEntry> joined, List<int[]> newRuns) {
    }

    public static StaticPlan planStatic(MemorySegment sys, int pageSize, int node, int first, int count) {
        int end = first + count;
        boolean[] covered = new boolean[count];
        List<DirectoryEntry> joined = new ArrayList<>();
        for (DirectoryEntry e : allocated(sys, pageSize)) {
            int lo = Math.max(first, e.firstPage());
            int hi = Math.min(end, e.endPage());
            if (lo >= hi) {
                continue;
            }
            if (!e.isStatic()) {
                throw new MemchanException(Kind.IN_USE, DirectoryEntry.ownerProblem(List.of(e), lo));
            }
            for (int p = lo; p < hi; p++) {
                covered[p - first] = true;
            }
            if ((e.users() & (1 << node)) == 0) {
                joined.add(e.withUsers(e.users() | 1 << node));
            }
        }
        List<int[]> runs = new ArrayList<>();
        for (int p = first; p < end; ) {
            if (covered[p - first]) {
                p++;
                continue;
            }
            int runEnd = p;
            while (runEnd < end && !covered[runEnd - first]) {
                runEnd++;
            }
            runs.add(new int[]{p, runEnd});
            p = runEnd;
        }
        return new StaticPlan(joined, runs);
    }

    /** The key of the static carve-out starting at {@code firstPage}. */
    public static long staticKey(int firstPage) {
        return SYS_STATIC_KEY | firstPage;
    }
}
