package dev.memchan.internal.cluster;

import dev.memchan.ClusterEvent;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.MemberSlot;
import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.Liveness;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeShared;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SystemPagesDescriptor;
import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static dev.memchan.layout.Regs.*;

/**
 * Membership of one node (system page 1): join and leave, the heartbeat, failure detection with the
 * {@link Liveness} rule, join/leave events, and the cleanup of a dead node's share of the cluster (its
 * directory entries, its bids) under the cluster lock.
 * <p>
 * Two threads per process: the <em>heartbeat</em> thread writes this node's HEARTBEAT every period and
 * reports its own lateness to {@link Liveness#tickReturned} (local health); the <em>agent</em> watches the
 * other nodes and does the work a death asks for (a dead process's share of this node, a dead node's
 * cleanup), which takes the cluster lock and an acknowledge barrier and may take seconds on a lossy
 * network. Peers judge this node by its heartbeat, so a survivor busy cleaning up after one death must not
 * look dead itself: the heartbeat goes on while the agent works, as long as the agent's current step is
 * younger than {@link #agentStallNanos}; an agent stuck longer (a deadlock, a lost hub) stops the heartbeat,
 * and the cluster then takes the node for dead and releases what it held, as for any death.
 */
public final class Membership implements AutoCloseable {

    private final Backend backend;
    private final TransmitStores tx;
    private final MemorySegment rx;
    private final DirectoryLock lock;
    private final RegionDirectory directory;
    private final Liveness liveness;
    private final int pageSize;
    private final int nodes;
    private final int me;
    private final long hostId = HostIdentity.hostId();
    private final int pid = Posix.getpid();
    private final long heartbeatPeriodNanos;
    private final BlockingQueue<ClusterEvent> events = new LinkedBlockingQueue<>(4096);
    private final List<Consumer<ClusterEvent>> listeners = new CopyOnWriteArrayList<>();
    private final int[] seenState;
    private final long[] seenIncarnation;
    private final long[] lastHeartbeat;
    private final long[] lastChange;
    /** When the process node n's slot names was first seen gone (this host), or 0. */
    private final long[] goneSince;
    private final boolean[] judgedDead;
    private long heartbeat;

    public int slot() {
        return slot;
    }
    private volatile boolean running;
    private Thread agent;
    private Thread heartbeater;
    /** When the agent began its current step (System.nanoTime, never 0), or 0 while it sleeps between ticks. */
    private volatile long agentStepStart;
    /**
     * The longest an agent's step may take while the heartbeat goes on: four failure timeouts plus the
     * backend's acknowledge barrier bound (a cleanup waits for the cluster lock and one barrier).
     */
    private final long agentStallNanos;
    private boolean stallReported;

    private final NodeLocal local;
    private final boolean ownsSlot;
    private volatile int slot;

    /**
     * @param local  the node's local table
     * @param slot   this process's slot in it, or -1 when the membership registers the process itself
     *               at {@link #join} (and frees the slot at {@link #close})
     */
    public Membership(Backend backend, TransmitStores tx, MemorySegment rx, DirectoryLock lock, RegionDirectory directory,
                      Liveness liveness, long heartbeatPeriodNanos, NodeLocal local, int slot) {
        this.local = local;
        this.slot = slot;
        this.ownsSlot = slot < 0;
        // a random start: the node's processes each count from their own, so their stores keep changing it
        this.heartbeat = java.util.concurrent.ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE / 2);
        this.backend = backend;
        this.tx = tx;
        this.rx = rx;
        this.lock = lock;
        this.directory = directory;
        this.liveness = liveness;
        this.pageSize = backend.pageSize();
        this.nodes = backend.maxNodes();
        this.me = backend.nodeId();
        this.heartbeatPeriodNanos = heartbeatPeriodNanos;
        this.seenState = new int[nodes];
        this.seenIncarnation = new long[nodes];
        this.lastHeartbeat = new long[nodes];
        this.lastChange = new long[nodes];
        this.goneSince = new long[nodes];
        this.judgedDead = new boolean[nodes];
        this.agentStallNanos = 4 * liveness.baseFailureTimeoutNanos() + backend.ackBarrierBound().toNanos();
    }

    private long slot(int n) {
        return SystemPagesDescriptor.memberSlot(pageSize, n);
    }

    public MemberSlot member(int n) {
        return MemberSlot.read(rx, pageSize, n);
    }

    /** The liveness rule on node {@code n}'s slot, observing its heartbeat now if it is on another host. */
    public boolean isDeadNow(int n) {
        MemberSlot m = member(n);
        return m.state() == SYS_NODE_STATE_ABSENT
                || liveness.isDeadObserving(m.hostId(), () -> member(n).pid(), () -> listsLiveProcess(n, member(n).incarnation()),
                () -> SystemPagesCodec.heartbeat(rx, pageSize, n));
    }

    /**
     * Node {@code n}'s local table on this host, of incarnation {@code inc}, lists a process that exists
     * (the table is named by where node n's processes opened the fabric: {@link Backend#locationsOfNodeHere}).
     */
    private boolean listsLiveProcess(int n, long inc) {
        for (String location : backend.locationsOfNodeHere(n)) {
            if (NodeLocal.listsLiveProcess(location, n, inc)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Judges the slot as read once at this tick ({@code m}, alive): reading it again here would take a
     * clean leave completed since then (state ABSENT) for a death.
     */
    private boolean isDeadWatched(int n, MemberSlot m, long now) {
        Liveness.Verdict v = Liveness.ofNode(m.hostId(), m.pid(), () -> listsLiveProcess(n, m.incarnation()));
        if (v != Liveness.Verdict.DEAD) {
            goneSince[n] = 0;
        } else if (goneSince[n] == 0) {
            goneSince[n] = now; // no process of the node is seen: the hand-over window starts
        }
        return liveness.isDeadWatched(v, lastChange[n], goneSince[n], now);
    }

    /**
     * Joins: as another process of this node when the node is a member of this incarnation with a live
     * process (several processes per node), else as the node, cleaning up after dead nodes found on the
     * way and after this node's previous life. Then starts the agent.
     */
    public void join() {
        lock.clearBidsOfDeadBidders();
        lock.with(() -> local.locked(() -> {
            local.resetIfStale(backend.incarnation());
            if (ownsSlot) {
                slot = local.register();
            }
            MemberSlot mine = member(me);
            boolean nodeLives = mine.alive() && mine.incarnation() == backend.incarnation()
                    && (local.otherLiveSlot(slot) >= 0 || Liveness.ofProcess(mine.hostId(), mine.pid()) == Liveness.Verdict.ALIVE);
            if (nodeLives) {
                if (Liveness.ofProcess(mine.hostId(), mine.pid()) != Liveness.Verdict.ALIVE) {
                    tx.setLongVolatile(slot(me) + SYS_MEMBER_PID, (long) pid); // the slot names a live process
                }
                return null;
            }
            for (int n = 0; n < nodes; n++) {
                MemberSlot m = member(n);
                if (m.state() != SYS_NODE_STATE_ABSENT && (n == me || isDeadNow(n))) { // my node's previous life, or a dead peer
                    if (n != me) {
                        fence(n, m.incarnation());
                    }
                    cleanupLocked(n, m.incarnation(), true);
                }
            }
            // the rows of processes that died with the node's previous life: its cleanup took their share
            for (int dead = local.deadSlot(); dead >= 0; dead = local.deadSlot()) {
                local.unregister(dead);
            }
            long s = slot(me);
            tx.setLongVolatile(s + SYS_MEMBER_INCARNATION, backend.incarnation());
            tx.setLongVolatile(s + SYS_MEMBER_PID, (long) pid);
            tx.setLongVolatile(s + SYS_MEMBER_HOST_ID, hostId);
            tx.setLongVolatile(s + SYS_MEMBER_HEARTBEAT, heartbeat);
            tx.setLongVolatile(s + SYS_MEMBER_JOIN_SEQ, directory.generation());
            directory.bumpGenerationLocked();
            tx.setIntVolatile(s + SYS_MEMBER_STATE, SYS_NODE_STATE_ALIVE);
            return null;
        }));
        running = true;
        heartbeater = Thread.ofPlatform().daemon().name("memchan-heartbeat-" + me).start(this::heartbeatLoop);
        agent = Thread.ofPlatform().daemon().name("memchan-agent-" + me).start(this::agentLoop);
    }

    /**
     * A process of this node that died: under the cluster lock and the table mutex, what it held is
     * released (directory bits no other process of the node holds, a lock set's node mutex and the
     * node's bids in it, its pages on the soft fabric); the member slot and the claim name a live process.
     */
    private void releaseDeadProcesses() {
        if (local.deadSlot() < 0) {
            return;
        }
        long seen = System.nanoTime();
        lock.with(() -> local.locked(() -> {
            for (int s = local.deadSlot(); s >= 0; s = local.deadSlot()) {
                releaseProcessLocked(s, local.pidOf(s));
            }
            return null;
        }));
        long took = System.nanoTime() - seen;
        if (took > liveness.baseHandOverNanos() / 2) {
            // the member slot names a live process only now: a peer on this host waits the hand-over window
            System.err.println("memchan: node " + me + " cluster agent: a dead process's share released "
                    + took / 1_000_000 + " ms after it was seen gone (" + timing() + ")");
        }
    }

    /** The timing a peer judges this node by, for the agent's reports. */
    private String timing() {
        return "heartbeat period " + heartbeatPeriodNanos / 1_000_000 + " ms, hand-over window "
                + liveness.baseHandOverNanos() / 1_000_000 + " ms, failure timeout " + liveness.baseFailureTimeoutNanos() / 1_000_000
                + " ms; this detector's local-health multiplier " + liveness.multiplier();
    }

    private void releaseProcessLocked(int s, int gonePid) {
        directory.releaseSlotLocked(s, gonePid);
        if (backend instanceof NodeShared shared) {
            shared.releaseProcess(s, gonePid);
        }
        if (member(me).pid() == gonePid) {
            tx.setLongVolatile(slot(me) + SYS_MEMBER_PID, (long) pid);
        }
        local.unregister(s);
    }

    /**
     * Writes this node's HEARTBEAT every period while the member slot is this incarnation's and the agent is
     * not stuck (see the class comment); each sleep's lateness is this detector's local health.
     */
    private void heartbeatLoop() {
        long lastTick = 0;
        while (running && evicted == null) {
            long tick = System.nanoTime();
            if (lastTick != 0 && tick - lastTick > liveness.baseHandOverNanos() / 2) {
                // peers judge this node by these heartbeats (another host) or by a survivor's hand-over (this host)
                System.err.println("memchan: node " + me + " heartbeat: " + (tick - lastTick) / 1_000_000
                        + " ms between heartbeats (" + timing() + ")");
            }
            lastTick = tick;
            long step = agentStepStart;
            try {
                if (step != 0 && tick - step > agentStallNanos) {
                    if (!stallReported) {
                        stallReported = true;
                        System.err.println("memchan: node " + me + " heartbeat: stopped, the cluster agent has been in one step for "
                                + (tick - step) / 1_000_000 + " ms (more than " + agentStallNanos / 1_000_000
                                + " ms): the cluster will take this node for dead and release what it held");
                    }
                } else {
                    MemberSlot mine = member(me);
                    if (mine.alive() && mine.incarnation() == backend.incarnation() && !backend.fencedOff()) {
                        tx.setLongVolatile(slot(me) + SYS_MEMBER_HEARTBEAT, ++heartbeat);
                    }
                }
            } catch (MemchanException e) {
                if (!running) {
                    return;
                }
                System.err.println("memchan: node " + me + " heartbeat: " + e.getMessage());
            } catch (IllegalStateException e) {
                return; // mappings closed under us: the fabric is closing
            }
            long asleep = System.nanoTime();
            Liveness.sleepNanos(heartbeatPeriodNanos);
            liveness.tickReturned(heartbeatPeriodNanos, System.nanoTime() - asleep); // local health
        }
    }

    private void agentLoop() {
        while (running) {
            long began = System.nanoTime();
            agentStepStart = began == 0 ? 1 : began;
            try {
                MemberSlot mine = member(me);
                if (!mine.alive() || mine.incarnation() != backend.incarnation() || backend.fencedOff()) {
                    evicted(mine);
                    return; // this process no longer writes the slot: it is not its node's any more
                }
                releaseDeadProcesses();
                watch();
                directory.syncMulticastRegisters(); // a group changed at another node reaches this adapter
            } catch (MemchanException e) {
                if (!running) {
                    return;
                }
                // A failed cleanup is retried at the next tick; the error is not lost silently.
                System.err.println("memchan: node " + me + " cluster agent: " + e.getMessage());
            } catch (IllegalStateException e) {
                return; // mappings closed under us: the fabric is closing
            } finally {
                agentStepStart = 0;
            }
            long took = System.nanoTime() - began;
            if (took > liveness.baseHandOverNanos() / 2) {
                System.err.println("memchan: node " + me + " cluster agent: a tick's work took " + took / 1_000_000
                        + " ms; the heartbeat went on (" + timing() + ")");
            }
            Liveness.sleepNanos(heartbeatPeriodNanos);
        }
    }

    /**
     * This node was declared dead while this process lives (its member slot was cleaned: ABSENT, or
     * another incarnation took it): what the node held is released, and may be someone else's by now.
     * The membership is fenced (cluster operations throw CLOSED) and its processes are told by an
     * EVICTED event; closing the Fabric and opening the node again rejoins as a new incarnation.
     */
    private void evicted(MemberSlot mine) {
        String why = "node " + me + " (incarnation " + backend.incarnation() + ") was declared dead by the cluster while "
                + "this process (pid " + pid + ") lived; what it held is released: close this Fabric and open the node again";
        evicted = new MemchanException(Kind.CLOSED, why);
        lock.fence(evicted);
        System.err.println("memchan: " + why + " (its member slot: state " + mine.state() + ", incarnation " + mine.incarnation()
                + "; " + timing() + ")");
        publish(new ClusterEvent(ClusterEvent.Type.EVICTED, me, backend.incarnation(), true));
    }

    /** Set once this node was found declared dead while this process lived; then cluster operations throw it. */
    private volatile MemchanException evicted;

    /** Whether this node was declared dead while this process lived (see {@link ClusterEvent.Type#EVICTED}). */
    public boolean isEvicted() {
        return evicted != null;
    }

    private void watch() {
        long now = System.nanoTime();
        for (int n = 0; n < nodes; n++) {
            MemberSlot m = member(n);
            long inc = m.incarnation();
            boolean alive = m.alive();
            boolean wasAlive = seenState[n] == SYS_NODE_STATE_ALIVE;
            if (wasAlive && (!alive || inc != seenIncarnation[n])) {
                // failed if this agent judged it, or another did: its cleanup wrote DEPARTED first
                boolean failed = judgedDead[n] || m.departed() == seenIncarnation[n];
                publish(new ClusterEvent(ClusterEvent.Type.LEAVE, n, seenIncarnation[n], failed));
                judgedDead[n] = false;
            }
            if (alive && (!wasAlive || inc != seenIncarnation[n])) {
                publish(new ClusterEvent(ClusterEvent.Type.JOIN, n, inc, false));
                lastHeartbeat[n] = m.heartbeat();
                lastChange[n] = now;
            }
            seenState[n] = alive ? SYS_NODE_STATE_ALIVE : m.state();
            seenIncarnation[n] = inc;
            if (!alive || n == me) {
                continue;
            }
            if (m.heartbeat() != lastHeartbeat[n]) {
                lastHeartbeat[n] = m.heartbeat();
                lastChange[n] = now;
            }
            if (isDeadWatched(n, m, now)) {
                judgedDead[n] = true;
                System.err.println("memchan: node " + me + " cluster agent: node " + n + " (incarnation " + inc + ") declared dead, "
                        + (goneSince[n] != 0 ? "no live process of it seen for " + (now - goneSince[n]) / 1_000_000 + " ms"
                        : "its heartbeat still for " + (now - lastChange[n]) / 1_000_000 + " ms") + " (" + timing() + ")");
                fence(n, inc); // first: taking the cluster lock and the cleanup's barrier would wait for it
                lock.clearBid(n); // it may have died holding the cluster lock
                int dead = n;
                lock.with(() -> cleanupLocked(dead, inc, true));
            }
        }
    }

    /**
     * Tells the backend that node {@code n}'s incarnation {@code inc} is declared dead, so that a hub cuts it off before
     * barriers wait for it; a refusal (it left, or came back as another incarnation, meanwhile) changes nothing here.
     */
    private void fence(int n, long inc) {
        try {
            backend.fenceDeadNode(n, inc);
        } catch (MemchanException refused) {
            System.err.println("memchan: node " + me + " cluster agent: " + refused.getMessage());
        }
    }

    private void publish(ClusterEvent e) {
        events.offer(e);
        for (var l : listeners) {
            l.accept(e);
        }
    }

    public ClusterEvent awaitEvent(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public void addListener(Consumer<ClusterEvent> listener) {
        listeners.add(listener);
    }

    /** Node mask of the members now alive. */
    public int members() {
        int mask = 0;
        for (int n = 0; n < nodes; n++) {
            if (SystemPagesCodec.memberState(rx, pageSize, n) == SYS_NODE_STATE_ALIVE) {
                mask |= 1 << n;
            }
        }
        return mask;
    }

    /**
     * Removes node {@code n} (incarnation {@code inc}) from the cluster's shared state; idempotent.
     * {@code failed}: it was declared dead, which DEPARTED records first, so that every observer's LEAVE
     * says so, not only the one that judged it. Caller holds the cluster lock.
     */
    private Void cleanupLocked(int n, long inc, boolean failed) {
        MemberSlot m = member(n);
        if (m.state() == SYS_NODE_STATE_ABSENT || m.incarnation() != inc) {
            return null; // someone else already did it
        }
        long s = slot(n);
        if (failed) {
            tx.setLongVolatile(s + SYS_MEMBER_DEPARTED, inc);
        }
        tx.setIntVolatile(s + SYS_MEMBER_STATE, SYS_NODE_STATE_LEAVING);
        directory.removeNodeLocked(n);
        if (n != me) {
            lock.clearBid(n); // our own bid is the lock we hold now
        }
        directory.bumpGenerationLocked();
        tx.setIntVolatile(s + SYS_MEMBER_STATE, SYS_NODE_STATE_ABSENT);
        if (n != me) {
            backend.ackBarrier(Duration.ofSeconds(1));
            backend.releaseDeadNode(n, inc);
        }
        return null;
    }

    /**
     * Stops the agent and leaves: with other live processes on the node, only what this process held
     * is released and the node stays a member; the last process leaves the membership cleanly.
     */
    @Override
    public void close() {
        running = false;
        for (Thread t : new Thread[]{heartbeater, agent}) {
            if (t != null) {
                t.interrupt();
                try {
                    t.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (evicted != null) { // the cluster cleaned up after the node: only this process's row is left
            if (ownsSlot) {
                local.locked(() -> {
                    if (local.pidOf(slot) == pid) {
                        local.unregister(slot);
                    }
                    return null;
                });
            }
            return;
        }
        lock.with(() -> local.locked(() -> {
            int other = local.otherLiveSlot(slot);
            if (other >= 0) {
                directory.releaseSlotLocked(slot, 0);
                if (member(me).pid() == pid) {
                    tx.setLongVolatile(slot(me) + SYS_MEMBER_PID, (long) local.pidOf(other));
                }
            } else {
                cleanupLocked(me, backend.incarnation(), false);
            }
            if (ownsSlot) {
                local.unregister(slot);
            }
            return null;
        }));
    }
}
