package dev.memchan.admin;

import dev.memchan.layout.Regs;
import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One entry of the region directory (system pages 3..7, docs/soft-fabric.md): a region programs
 * allocated, a lock set, or a static carve-out an operator routed with {@code mcctl pct} / {@code apply}.
 * An immutable snapshot; the cluster service computes changes with the {@code with...} methods and
 * writes the result whole. Field meanings are the {@code Regs.SYS_REGION_*} fields of the same names.
 *
 * @param index      the entry's number in the directory
 * @param state      {@code Regs.SYS_REGION_STATE_FREE} or {@code SYS_REGION_STATE_ALLOCATED}
 * @param users      node mask of the nodes that allocated (or, for a carve-out, hold PCT entries on) it
 * @param txNodes    node mask of the transmitters
 * @param rxNodes    node mask of the receivers
 * @param txLoopback node mask of the transmitters with local copy
 * @param route      the ROUTE word: ROUTED and the transmitters' DEST_KIND / DEST
 * @param flags      the FLAGS word: LOCKSET, STATIC, LOCK_COUNT
 */
public record DirectoryEntry(int index, int state, int mode, long key, int uid, int gid, int firstPage, int pageCount,
                             int users, int txNodes, int rxNodes, int txLoopback, int route, int flags, long generation) {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    /** Entry {@code i} of the directory as {@code systemPages} (network page 0 at offset 0) holds it now. */
    public static DirectoryEntry read(MemorySegment systemPages, int pageSize, int i) {
        long o = SystemPagesDescriptor.regionEntry(pageSize, i);
        return new DirectoryEntry(i,
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_STATE),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_MODE),
                (long) LONG.getVolatile(systemPages, o + Regs.SYS_REGION_KEY),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_UID),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_GID),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_FIRST_PAGE),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_PAGE_COUNT),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_USERS),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_TX_NODES),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_RX_NODES),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_TX_LOOPBACK),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_ROUTE),
                (int) INT.getVolatile(systemPages, o + Regs.SYS_REGION_FLAGS),
                (long) LONG.getVolatile(systemPages, o + Regs.SYS_REGION_GENERATION));
    }


    /** A new allocated entry with no transmitter or receiver. */
    public static DirectoryEntry allocated(int index, long key, int mode, int uid, int gid, int firstPage, int pageCount,
                                           int users, int flags, long generation) {
        return new DirectoryEntry(index, Regs.SYS_REGION_STATE_ALLOCATED, mode, key, uid, gid, firstPage, pageCount, users,
                0, 0, 0, 0, flags, generation);
    }

    public boolean isFree() {
        return state == Regs.SYS_REGION_STATE_FREE;
    }

    /** The pages hold lock bids (a lock set), not data. */
    public boolean isLockSet() {
        return SystemPagesDescriptor.regionFlagsLockset(flags);
    }

    /** A lock set of compare-and-swap words in its {@link #home()}'s memory (else, if a lock set, bid rows). */
    public boolean isCasLockSet() {
        return SystemPagesDescriptor.regionFlagsCas(flags);
    }

    /** The node holding a CAS lock set's words (0 for anything else). */
    public int home() {
        return SystemPagesDescriptor.regionFlagsHome(flags);
    }

    /** A static carve-out (mcctl pct / apply): users are the nodes holding PCT entries on its pages. */
    public boolean isStatic() {
        return SystemPagesDescriptor.regionFlagsStatic(flags);
    }

    /** Locks of a lock set (0 for a region). */
    public int lockCount() {
        return SystemPagesDescriptor.regionFlagsLockCount(flags);
    }

    /** Some node transmits: the route is in force. */
    public boolean routed() {
        return SystemPagesDescriptor.regionRouteRouted(route);
    }

    /** The route's DEST_KIND and DEST bits, without ROUTED. */
    public int routeBits() {
        return SystemPagesDescriptor.regionRoute(false, SystemPagesDescriptor.regionRouteDestKind(route),
                SystemPagesDescriptor.regionRouteDest(route));
    }

    /** One past the last page. */
    public int endPage() {
        return firstPage + pageCount;
    }

    public boolean covers(int page) {
        return page >= firstPage && page < endPage();
    }

    public DirectoryEntry withUsers(int mask) {
        return new DirectoryEntry(index, state, mode, key, uid, gid, firstPage, pageCount, mask, txNodes, rxNodes,
                txLoopback, route, flags, generation);
    }

    /** The transmit side: transmitters, those with local copy, and the ROUTE word. */
    public DirectoryEntry withTransmit(int txMask, int loopbackMask, int routeWord) {
        return new DirectoryEntry(index, state, mode, key, uid, gid, firstPage, pageCount, users, txMask, rxNodes,
                loopbackMask, routeWord, flags, generation);
    }

    public DirectoryEntry withReceivers(int mask) {
        return new DirectoryEntry(index, state, mode, key, uid, gid, firstPage, pageCount, users, txNodes, mask,
                txLoopback, route, flags, generation);
    }

    /** The nodes of {@code mask} taken out of every mask; the route is dropped with the last transmitter. */
    public DirectoryEntry withoutNodes(int mask) {
        int tx = txNodes & ~mask;
        return new DirectoryEntry(index, state, mode, key, uid, gid, firstPage, pageCount, users & ~mask, tx,
                rxNodes & ~mask, txLoopback & ~mask, tx == 0 ? 0 : route, flags, generation);
    }

    /**
     * Why an operator may not write the PCT entry of {@code page}: the allocated region (not a static
     * carve-out, which is the operator's own) that owns it, or null.
     */
    public static String ownerProblem(List<DirectoryEntry> entries, int page) {
        for (DirectoryEntry r : entries) {
            if (!r.isStatic() && !r.isFree() && r.covers(page)) {
                return String.format("page %d belongs to region 0x%x (pages %d..%d, allocated in the directory); "
                        + "its PCT entries follow the region's attachments", page, r.key(), r.firstPage(), r.endPage() - 1);
            }
        }
        return null;
    }

    /** A node mask as "0,2,5", or "none". */
    public static String nodes(int mask) {
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < 32; n++) {
            if ((mask & (1 << n)) != 0) {
                sb.append(sb.isEmpty() ? "" : ",").append(n);
            }
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
