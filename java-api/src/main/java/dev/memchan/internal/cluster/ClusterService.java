package dev.memchan.internal.cluster;

import dev.memchan.ClusterEvent;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.Route;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.ClusterAdmin;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.StaticCarveOuts;
import dev.memchan.internal.Liveness;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeShared;
import dev.memchan.layout.RxPct;
import dev.memchan.spi.Backend;

import java.time.Duration;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;

import static dev.memchan.layout.Regs.SYS_NODE_STATE_ABSENT;
import static dev.memchan.layout.Regs.SYS_PAGES;

/**
 * The cluster service of one node: the system pages (network pages 0..SYS_PAGES-1, mapped broadcast +
 * local copy for transmit and for receive) and the three subsystems kept in them, each in its own
 * class: the {@link DirectoryLock}, the {@link Membership} and the {@link RegionDirectory}. It uses only
 * {@link Backend}, so it is the same on the soft fabric and on the kernel driver's device. Writes go
 * through the transmit mapping and reads through the receive mapping, as they must on a board.
 */
public final class ClusterService implements ClusterAdmin, AutoCloseable {
    /** Every system page (and a lock set's or new region's zeroing grant) is routed broadcast with local copy. */
    public static final int SYSTEM_TX_ENTRY = Route.broadcast().pctEntry(true, false);
    /** A joining node's cluster-lock bid is taken for a dead joiner's after this many failure timeouts. */
    static final int JOINER_BOUND_TIMEOUTS = 4;

    private final Backend backend;
    private final Backend.Grant sysTx;
    private final Backend.Grant sysRx;
    private final DirectoryLock lock;
    private final RegionDirectory directory;
    private final Membership membership;
    private final Liveness liveness;
    private final ClusterView view;
    private final NodeLocal local;
    private final boolean ownsLocal;

    public ClusterService(Backend backend, Duration heartbeatPeriod, Duration failureTimeout) {
        this.backend = backend;
        this.sysTx = backend.grantTransmit(0, SYS_PAGES, SYSTEM_TX_ENTRY);
        try {
            this.sysRx = backend.grantReceive(0, SYS_PAGES, RxPct.encode(true, false));
        } catch (RuntimeException e) {
            sysTx.close();
            throw e;
        }
        Liveness liveness = new Liveness(heartbeatPeriod.toNanos(), failureTimeout.toNanos());
        this.liveness = liveness;
        int slot;
        if (backend instanceof NodeShared shared) { // the soft fabric: the backend's table and slot
            this.local = shared.nodeLocal();
            this.ownsLocal = false;
            slot = shared.localSlot();
        } else {
            try {
                this.local = NodeLocal.open(backend.location(), backend.nodeId(), backend.pageSize(), backend.pageCount());
            } catch (RuntimeException e) {
                sysRx.close();
                sysTx.close();
                throw e;
            }
            this.ownsLocal = true;
            slot = -1; // registered when joining
        }
        // a joiner holds the lock for its join's cleanup and registration: far less than this on any
        // machine the failure timeout fits, stretched as the rest by the detector's local health
        TransmitStores sys = new TransmitStores(backend, sysTx);
        this.lock = new DirectoryLock(backend, sys, sysRx.segment(), sysTx.writeCombining(), local,
                n -> membership().isDeadNow(n), n -> membership().member(n).state() != SYS_NODE_STATE_ABSENT,
                () -> JOINER_BOUND_TIMEOUTS * liveness.failureTimeoutNanos());
        this.directory = new RegionDirectory(backend, sys, sysRx.segment(), lock, local, () -> membership().slot());
        this.membership = new Membership(backend, sys, sysRx.segment(), lock, directory, liveness,
                heartbeatPeriod.toNanos(), local, slot);
        this.view = ClusterView.of(sysRx.segment(), backend.pageSize(), backend.maxNodes());
    }

    private Membership membership() {
        return membership;
    }

    /**
     * Whether this backend's transmit grants are shadows of the pages ({@link Backend.Grant#shadowed()}), as the
     * system pages' grant is: a lock without a transmit grant of its own (the CAS lock) pushes them all before
     * its release.
     */
    public boolean transmitShadowed() {
        return sysTx.shadowed();
    }

    /** The node's local table (node mutexes of lock sets live in it). */
    public NodeLocal nodeLocal() {
        return local;
    }

    public int nodeId() {
        return backend.nodeId();
    }

    public RegionDirectory directory() {
        return directory;
    }

    /** Joins the membership (see {@link Membership#join}). */
    public void join() {
        membership.join();
    }

    public int members() {
        return membership.members();
    }

    public ClusterEvent awaitEvent(Duration timeout) throws InterruptedException {
        return membership.awaitEvent(timeout);
    }

    public void addListener(Consumer<ClusterEvent> listener) {
        membership.addListener(listener);
    }

    // ---- ClusterAdmin ----------------------------------------------------------------------------

    @Override
    public ClusterView view() {
        return view;
    }

    @Override
    public int detectorStretch() {
        return liveness.multiplier();
    }

    @Override
    public <T> T transaction(Function<StaticCarveOuts, T> body) {
        return lock.with(() -> {
            Carve carve = new Carve();
            try {
                return body.apply(carve);
            } finally {
                carve.open = false;
            }
        });
    }

    /** The carve-out handle of one transaction. */
    private final class Carve implements StaticCarveOuts {
        private boolean open = true;

        private void check() {
            if (!open || !lock.heldByThisThread()) {
                throw new MemchanException(Kind.CLOSED, "static carve-outs change only inside their transaction");
            }
        }

        @Override
        public void reserve(int node, int first, int count) {
            check();
            directory.reserveStaticLocked(node, first, count);
        }

        @Override
        public void release(int visibleNodes, BiPredicate<Integer, Integer> holds) {
            check();
            directory.releaseStaticLocked(visibleNodes, holds);
        }
    }

    @Override
    public void writePct(AdapterView view, List<PctWrite> batch) {
        PctTransaction.checkSameFabric(view, backend.location());
        transaction(carveOuts -> {
            PctTransaction.run(carveOuts, view, batch);
            return null;
        });
    }

    @Override
    public Backend adapter() {
        return backend;
    }

    /** Entry {@code i} of the directory as this node sees it. */
    public DirectoryEntry readEntry(int i) {
        return directory.readEntry(i);
    }

    /** Leaves the membership cleanly (everything this node held is released) and unmaps the system pages. */
    @Override
    public void close() {
        try {
            membership.close();
        } finally {
            sysTx.close();
            sysRx.close();
            if (ownsLocal) {
                local.close();
            }
        }
    }
}
