package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeLocalDescriptor;
import dev.memchan.internal.local.NodeMutex;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.IntSupplier;

import static dev.memchan.layout.Regs.*;

/**
 * The region directory of one node (system pages 2..7): allocation by key (imc_asalloc), attach and
 * detach bookkeeping with the routing rules, release, multicast groups and the operator's static
 * carve-outs. Decisions are {@link DirectoryRules}' pure functions of a snapshot read through the
 * receive mapping; the results are written whole through the transmit mapping, under the cluster lock
 * (inside it nothing just written is read back: on a board the local copy arrives a little later).
 */
public final class RegionDirectory {
    private final Backend backend;
    private final TransmitStores tx;
    private final MemorySegment rx;
    private final DirectoryLock lock;
    private final int pageSize;
    private final int nodes;
    private final int me;
    private final int capacity;
    private final NodeLocal local;
    private final IntSupplier slot;
    /** This node's MCAST_GROUP registers as last read or written here; null where the adapter has none. */
    private final int[] adapterGroups;

    /**
     * @param local the node's local table: what each process of the node holds of each entry
     * @param slot  this process's slot in it
     */
    public RegionDirectory(Backend backend, TransmitStores tx, MemorySegment rx, DirectoryLock lock, NodeLocal local, IntSupplier slot) {
        this.local = local;
        this.slot = slot;
        this.backend = backend;
        this.tx = tx;
        this.rx = rx;
        this.lock = lock;
        this.pageSize = backend.pageSize();
        this.nodes = backend.maxNodes();
        this.me = backend.nodeId();
        this.capacity = SystemPagesCodec.regionCapacity(pageSize);
        this.adapterGroups = backend.hasMulticastRegisters() ? new int[MULTICAST_GROUPS] : null;
        if (adapterGroups != null) {
            for (int g = 0; g < MULTICAST_GROUPS; g++) {
                adapterGroups[g] = backend.readRegister(REG_MCAST_GROUP_BASE + REG_MCAST_GROUP_STRIDE * g);
            }
        }
    }

    public int capacity() {
        return capacity;
    }

    public DirectoryEntry readEntry(int i) {
        return DirectoryEntry.read(rx, pageSize, i);
    }

    public List<DirectoryEntry> regions() {
        return DirectoryRules.allocated(rx, pageSize);
    }

    public long generation() {
        return SystemPagesCodec.generation(rx, pageSize);
    }

    /** Caller holds the cluster lock. */
    long bumpGenerationLocked() {
        long g = generation() + 1;
        SystemPagesCodec.setGeneration(tx, pageSize, g);
        return g;
    }

    private void write(DirectoryEntry e) {
        SystemPagesCodec.writeEntry(tx, pageSize, e);
    }

    /** Takes the nodes of {@code bits} out of an entry; the last user frees it. Caller holds the cluster lock. */
    private void removeUsers(DirectoryEntry e, int bits) {
        DirectoryEntry after = e.withoutNodes(bits);
        if (after.users() == 0) {
            SystemPagesCodec.freeEntry(tx, pageSize, e.index());
        } else {
            write(after);
        }
    }

    /** Entry of a region this node allocated; throws NOT_FOUND when it was freed or reused. */
    private DirectoryEntry current(int index, long generation) {
        DirectoryEntry e = readEntry(index);
        if (e.isFree() || e.generation() != generation) {
            throw new MemchanException(Kind.NOT_FOUND, "region (directory entry " + index + ") no longer exists");
        }
        return e;
    }

    /**
     * imc_asalloc: allocates {@code pages} network pages under {@code key}, or joins the region already
     * allocated under that key (same size and kind required).
     */
    public DirectoryEntry allocate(long key, int pages, int mode, int flags, Credentials cred) {
        if (pages < 1 || pages > backend.pageCount() - SYS_PAGES) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "region of " + pages + " pages: must be 1.."
                    + (backend.pageCount() - SYS_PAGES) + " on " + backend.location());
        }
        if ((mode & ~0777) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("mode 0%o has bits outside 0777", mode));
        }
        return lock.with(() -> {
            DirectoryEntry e = DirectoryRules.find(rx, pageSize, key);
            if (e != null && e.isStatic()) {
                throw new MemchanException(Kind.IN_USE, String.format("key 0x%x names a static carve-out (pages %d..%d, "
                        + "routed by mcctl pct or apply); choose another key", key, e.firstPage(), e.endPage() - 1));
            }
            if (e != null) {
                // a CAS lock set is joined whoever asks: its HOME stays the allocator's
                int kind = ~SYS_REGION_FLAGS_HOME_MASK;
                if (e.pageCount() != pages || (e.flags() & kind) != (flags & kind)) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, String.format(
                            "key 0x%x is allocated as %s of %d pages; asked for %s of %d pages", key,
                            e.isLockSet() ? "a " + (e.isCasLockSet() ? "CAS" : "bid") + " lock set of " + e.lockCount() + " locks" : "a region", e.pageCount(),
                            SystemPagesDescriptor.regionFlagsLockset(flags)
                                    ? "a " + (SystemPagesDescriptor.regionFlagsCas(flags) ? "CAS" : "bid") + " lock set of "
                                    + SystemPagesDescriptor.regionFlagsLockCount(flags) + " locks" : "a region", pages));
                }
                if (!cred.permits(e, 4) && !cred.permits(e, 2)) {
                    throw new MemchanException(Kind.PERMISSION, String.format("key 0x%x (mode 0%o, uid %d, gid %d) "
                            + "grants neither read nor write to uid %d", key, e.mode(), e.uid(), e.gid(), cred.uid()));
                }
                DirectoryEntry joined = e.withUsers(e.users() | 1 << me);
                write(joined);
                addMine(joined.index(), NodeLocalDescriptor.BIT_USER);
                return joined;
            }
            int free = DirectoryRules.freeEntryIndex(rx, pageSize);
            if (free < 0) {
                throw new MemchanException(Kind.IN_USE, "the region directory is full (" + capacity + " regions)");
            }
            int first = DirectoryRules.firstFit(rx, pageSize, backend.pageCount(), pages, backend.location());
            zeroPages(first, pages);
            DirectoryEntry created = DirectoryEntry.allocated(free, key, mode, cred.uid(), cred.gid(), first, pages,
                    1 << me, flags, bumpGenerationLocked());
            write(created);
            addMine(created.index(), NodeLocalDescriptor.BIT_USER);
            return created;
        });
    }

    /**
     * A new region starts zeroed on every node: freed pages keep their last contents. The zeros are pushed as
     * a range where the grant is a shadow: a diff would send nothing for a word whose twin already holds 0.
     */
    private void zeroPages(int first, int count) {
        try (Backend.Grant g = backend.grantTransmit(first, count, ClusterService.SYSTEM_TX_ENTRY)) {
            new TransmitStores(backend, g).zero(0, g.segment().byteSize());
            backend.ackBarrier(backend.ackBarrierBound());
        }
    }

    /** imc_asattach / imc_asattach_ptp bookkeeping: this node transmits on the region. */
    public DirectoryEntry attachTransmit(int index, long generation, Route route, boolean loopback, Credentials cred) {
        return lock.with(() -> {
            syncMulticastRegisters();
            DirectoryEntry e = current(index, generation);
            if (!cred.permits(e, 2)) {
                throw new MemchanException(Kind.PERMISSION, String.format("region 0x%x (mode 0%o, uid %d, gid %d) "
                        + "is not writable by uid %d: no transmit", e.key(), e.mode(), e.uid(), e.gid(), cred.uid()));
            }
            int routeBits = route.pctEntry(false, false) & (SYS_REGION_ROUTE_DEST_KIND_MASK | SYS_REGION_ROUTE_DEST_MASK);
            DirectoryEntry after = DirectoryRules.withTransmitter(rx, pageSize, nodes, e, me, routeBits, loopback);
            write(after);
            addMine(index, NodeLocalDescriptor.BIT_TX | (loopback ? NodeLocalDescriptor.BIT_TX_LOOPBACK : 0));
            return after;
        });
    }

    /** imc_asattach with IMC_RECEIVE bookkeeping: this node receives the region. */
    public DirectoryEntry attachReceive(int index, long generation, Credentials cred) {
        return lock.with(() -> {
            syncMulticastRegisters();
            DirectoryEntry e = current(index, generation);
            if (!cred.permits(e, 4)) {
                throw new MemchanException(Kind.PERMISSION, String.format("region 0x%x (mode 0%o, uid %d, gid %d) "
                        + "is not readable by uid %d: no receive", e.key(), e.mode(), e.uid(), e.gid(), cred.uid()));
            }
            DirectoryEntry after = DirectoryRules.withReceiver(rx, pageSize, nodes, e, me);
            write(after);
            addMine(index, NodeLocalDescriptor.BIT_RX);
            return after;
        });
    }

    /** Caller holds the cluster lock: this process now holds {@code bits} of entry {@code index} too. */
    private void addMine(int index, int bits) {
        local.locked(() -> {
            local.setEntryBits(slot.getAsInt(), index, local.entryBits(slot.getAsInt(), index) | bits);
            return null;
        });
    }

    /** The last transmit or receive attachment of this process to the region went away. */
    public void detach(int index, long generation, boolean transmit) {
        lock.with(() -> local.locked(() -> {
            DirectoryEntry e = readEntry(index);
            if (e.isFree() || e.generation() != generation) {
                return null;
            }
            dropLocked(slot.getAsInt(), e, transmit ? NodeLocalDescriptor.BIT_TX | NodeLocalDescriptor.BIT_TX_LOOPBACK
                    : NodeLocalDescriptor.BIT_RX, 0);
            return null;
        }));
    }

    /** imc_asdealloc: this process no longer uses the region; the node's last user frees it for the node. */
    public void release(int index, long generation) {
        lock.with(() -> local.locked(() -> {
            DirectoryEntry e = readEntry(index);
            if (e.isFree() || e.generation() != generation) {
                return null;
            }
            dropLocked(slot.getAsInt(), e, 0xFF, 0);
            return null;
        }));
    }

    /**
     * Caller holds the cluster lock and the table mutex: the process of slot {@code s} gives up
     * {@code bits} of entry {@code e}; the node's bits in the directory follow what the node's other
     * processes still hold (the last user of the node leaves the entry, the last user of all frees it).
     * {@code deadPid} != 0: that process died, and a lock set's node mutex it held is taken back.
     */
    private void dropLocked(int s, DirectoryEntry e, int bits, int deadPid) {
        int mine = local.entryBits(s, e.index());
        int dropped = mine & bits;
        if (e.isCasLockSet() && deadPid != 0) {
            CasLock.clearHolder(backend, e, me, deadPid); // its holds name it
        } else if (e.isLockSet() && deadPid != 0) {
            // if it died holding one of the set's locks, the node's bids are its: cleared by whichever
            // process takes its node mutex over first (this agent, or a process of the node acquiring)
            NodeMutex.freeIfHeldBy(local.segment(), local.lockSetMutex(e.index()), deadPid, local.pid(),
                    () -> clearLockSetBids(e, me));
        }
        if (dropped == 0) {
            return;
        }
        local.setEntryBits(s, e.index(), mine & ~bits);
        int others = local.entryBitsOfOthers(s, e.index());
        int bit = 1 << me;
        if ((dropped & NodeLocalDescriptor.BIT_USER) != 0 && (others & NodeLocalDescriptor.BIT_USER) == 0) {
            if (e.isLockSet() && !(e.isCasLockSet() && e.home() == me)) { // a home's words leave with it
                clearLockSetBids(e, me);
            }
            removeUsers(e, bit);
            bumpGenerationLocked();
            return;
        }
        DirectoryEntry after = e;
        if ((dropped & NodeLocalDescriptor.BIT_TX) != 0 && (others & NodeLocalDescriptor.BIT_TX) == 0) {
            int txNodes = e.txNodes() & ~bit;
            after = after.withTransmit(txNodes, e.txLoopback() & ~bit, txNodes == 0 ? 0 : e.route());
        }
        if ((dropped & NodeLocalDescriptor.BIT_RX) != 0 && (others & NodeLocalDescriptor.BIT_RX) == 0) {
            after = after.withReceivers(after.rxNodes() & ~bit);
        }
        if (after != e) {
            write(after);
        }
    }

    /**
     * Caller holds the cluster lock and the table mutex: everything the process of slot {@code s} held
     * of the directory is given up ({@code deadPid} != 0: it died; see {@link #dropLocked}).
     */
    void releaseSlotLocked(int s, int deadPid) {
        for (DirectoryEntry e : regions()) {
            if (!e.isStatic()) {
                dropLocked(s, e, 0xFF, deadPid);
            }
        }
    }

    /**
     * Takes node {@code n} out of every region and lock set it used (its bids in lock sets are
     * cleared); static carve-outs belong to the operator's PCT entries, not to a member. Caller holds
     * the cluster lock.
     */
    void removeNodeLocked(int n) {
        int bit = 1 << n;
        for (DirectoryEntry e : regions()) {
            if (e.isStatic() || ((e.users() | e.txNodes() | e.rxNodes()) & bit) == 0) {
                continue;
            }
            if (e.isLockSet() && (e.users() & bit) != 0) {
                clearLockSetBids(e, n);
            }
            removeUsers(e, bit);
        }
    }

    private void clearLockSetBids(DirectoryEntry e, int n) {
        if (e.isCasLockSet()) {
            CasLock.clearHolder(backend, e, n, 0);
            return;
        }
        try (Backend.Grant g = backend.grantTransmit(e.firstPage(), e.pageCount(), ClusterService.SYSTEM_TX_ENTRY)) {
            TransmitStores stores = new TransmitStores(backend, g);
            long row = BidLock.rowSize(nodes);
            for (int l = 0; l < e.lockCount(); l++) {
                BidLock.clearBid(stores, l * row, n);
            }
            backend.ackBarrier(backend.ackBarrierBound());
        }
    }

    // ---- multicast groups ------------------------------------------------------------------------

    public int multicastGroup(int group) {
        checkGroup(group);
        return SystemPagesCodec.multicastGroup(rx, pageSize, group);
    }

    private static void checkGroup(int group) {
        if (group < 0 || group >= MULTICAST_GROUPS) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "multicast group " + group + " out of range 0.." + (MULTICAST_GROUPS - 1));
        }
    }

    public void setMulticastGroup(int group, int nodeMask) {
        checkGroup(group);
        int all = DirectoryRules.allNodes(nodes);
        if ((nodeMask & ~all) != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "multicast group " + group + ": nodes "
                    + DirectoryEntry.nodes(nodeMask & ~all) + " are out of range 0.." + (nodes - 1));
        }
        lock.with(() -> {
            DirectoryRules.checkGroupUnused(rx, pageSize, group);
            SystemPagesCodec.setMulticastGroup(tx, pageSize, group, nodeMask);
            bumpGenerationLocked();
            return null;
        });
        syncMulticastRegisters();
    }

    /**
     * Copies the directory's multicast groups into this node's MCAST_GROUP registers where they differ
     * (a board: the adapter filters multicast by them, and on a hub announces them, so the hub replicates
     * a group's frames to its members only). The directory stays the one source: this runs after a
     * group change here, at every attach (under the cluster lock, so a change made at another node before
     * is seen) and at every heartbeat of the agent, so a change reaches every adapter within a heartbeat.
     * Allocates nothing and writes only what changed; a no-op where the adapter has no such registers.
     */
    public void syncMulticastRegisters() {
        if (adapterGroups == null) {
            return;
        }
        synchronized (adapterGroups) {
            for (int g = 0; g < MULTICAST_GROUPS; g++) {
                int mask = SystemPagesCodec.multicastGroup(rx, pageSize, g);
                if (mask != adapterGroups[g]) {
                    adapterGroups[g] = backend.writeMulticastGroup(g, mask);
                }
            }
        }
    }

    // ---- static carve-outs -----------------------------------------------------------------------

    /**
     * Records that node {@code node} holds operator-written PCT entries on pages {@code first ..
     * first + count - 1} (mcctl pct set / apply): the pages join the static carve-outs that cover them,
     * and every run not yet covered becomes a new carve-out, so the allocator never hands them to a
     * region. Refused if a page belongs to a region, or when the directory has no room (then nothing
     * is written). Caller holds the cluster lock.
     */
    public void reserveStaticLocked(int node, int first, int count) {
        if (node < 0 || node >= nodes || first < SYS_PAGES || count < 1 || first + count > backend.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "static carve-out of pages " + first + "+" + count + " for node "
                    + node + ": outside the window " + SYS_PAGES + ".." + (backend.pageCount() - 1) + " or node range");
        }
        DirectoryRules.StaticPlan plan = DirectoryRules.planStatic(rx, pageSize, node, first, count);
        int[] free = new int[plan.newRuns().size()];
        int found = 0;
        for (int i = 0; i < capacity && found < free.length; i++) {
            if (readEntry(i).isFree()) {
                free[found++] = i;
            }
        }
        if (found < free.length) {
            int[] run = plan.newRuns().get(found);
            throw new MemchanException(Kind.IN_USE, "the region directory is full (" + capacity
                    + " entries): no room for the static carve-out of pages " + run[0] + ".." + (run[1] - 1));
        }
        plan.joined().forEach(this::write);
        for (int i = 0; i < free.length; i++) {
            int[] run = plan.newRuns().get(i);
            write(DirectoryEntry.allocated(free[i], DirectoryRules.staticKey(run[0]), 0, 0, 0, run[0], run[1] - run[0],
                    1 << node, SystemPagesDescriptor.regionFlags(false, true, false, 0, 0), bumpGenerationLocked()));
        }
    }

    /**
     * Drops node {@code n} from every static carve-out where {@code holds(n, page)} is false for all
     * its pages, for the nodes in {@code visible} (an adapter sees only its own PCT); a carve-out no
     * node holds is freed. Caller holds the cluster lock.
     */
    public void releaseStaticLocked(int visible, BiPredicate<Integer, Integer> holds) {
        for (DirectoryEntry e : regions()) {
            if (!e.isStatic()) {
                continue;
            }
            int drop = 0;
            for (int n = 0; n < nodes; n++) {
                int bit = 1 << n;
                if ((e.users() & visible & bit) == 0) {
                    continue;
                }
                boolean any = false;
                for (int p = e.firstPage(); p < e.endPage() && !any; p++) {
                    any = holds.test(n, p);
                }
                if (!any) {
                    drop |= bit;
                }
            }
            if (drop != 0) {
                removeUsers(e, drop);
                bumpGenerationLocked();
            }
        }
    }
}
