package dev.memchan.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one liveness rule: the pid on this host, the heartbeat elsewhere. */
class LivenessTest {
    private static final long MS = 1_000_000L;

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    @Test
    void onThisHostThePidDecidesAndAnotherProcessOfTheNodeHasTheHandOverWindow() throws Exception {
        long here = HostIdentity.hostId();
        long me = ProcessHandle.current().pid();
        assertEquals(Liveness.Verdict.ALIVE, Liveness.ofProcess(here, me));
        long dead = deadPid();
        assertEquals(Liveness.Verdict.DEAD, Liveness.ofProcess(here, dead));
        assertFalse(Liveness.mayBeAlive(here, dead));
        assertEquals(400 * MS, new Liveness(100 * MS, 800 * MS).handOverNanos(), "half the failure timeout");
        Liveness l = new Liveness(10 * MS, 20 * MS);
        assertEquals(20 * MS, l.handOverNanos(), "at least two heartbeat periods");
        assertFalse(l.isDeadObserving(here, () -> me, NONE, () -> 0), "a live pid: alive, whatever the heartbeat");
        assertFalse(l.isDeadWatched(Liveness.ofNode(here, me, NONE), 0, 0, Long.MAX_VALUE));
        long t0 = System.nanoTime();
        AtomicLong beats = new AtomicLong();
        assertTrue(l.isDeadObserving(here, () -> dead, NONE, beats::incrementAndGet),
                "pid gone and still named: dead, though the heartbeat moves (the ivshmem driver beats for its node)");
        assertTrue(System.nanoTime() - t0 < 5_000 * MS, "a local verdict waits the hand-over window, not the failure timeout");
        AtomicLong named = new AtomicLong(dead);
        Thread.ofPlatform().start(() -> {
            Liveness.sleepNanos(5 * MS);
            named.set(me); // a survivor names itself
        });
        // a window of 1 s, not l's 20 ms: the naming thread must get a CPU within it (two CPUs under load: not always in 15 ms)
        assertFalse(new Liveness(10 * MS, 2_000 * MS).isDeadObserving(here, named::get, NONE, () -> 0),
                "another live process named within the window");
        long now = System.nanoTime();
        Liveness.Verdict gone = Liveness.ofNode(here, dead, NONE);
        assertEquals(Liveness.Verdict.DEAD, gone);
        assertFalse(l.isDeadWatched(gone, now - 60_000 * MS, now - 5 * MS, now), "within the hand-over window");
        assertTrue(l.isDeadWatched(gone, now, now - 30 * MS, now), "past it, whatever the heartbeat");
    }

    /** No node-local table to consult (or none listing a live process). */
    private static final java.util.function.BooleanSupplier NONE = () -> false;

    @Test
    void aNodeWhoseTableListsALiveProcessIsAliveThoughItsSlotNamesADeadOne() throws Exception {
        long here = HostIdentity.hostId();
        long dead = deadPid();
        Liveness l = new Liveness(10 * MS, 20 * MS);
        assertEquals(Liveness.Verdict.ALIVE, Liveness.ofNode(here, dead, () -> true), "the table's live process: the kernel's word");
        assertFalse(l.isDeadObserving(here, () -> dead, () -> true, () -> 0), "not dead, however long it takes to rename the slot");
        long now = System.nanoTime();
        assertFalse(l.isDeadWatched(Liveness.ofNode(here, dead, () -> true), now, now - 60_000 * MS, now));
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        Liveness.ofNode(here, ProcessHandle.current().pid(), () -> asked.incrementAndGet() > 0);
        assertEquals(0, asked.get(), "the table is read only when the named process is gone");
        assertEquals(Liveness.Verdict.ANOTHER_HOST, Liveness.ofNode(here ^ 0x5a5a, dead, () -> true),
                "another host's pids mean nothing here: its heartbeat decides");
    }

    @Test
    void lateTicksStretchTheWindowsAndOnTimeTicksShrinkThemBack() {
        Liveness l = new Liveness(100 * MS, 800 * MS);
        assertEquals(1, l.multiplier());
        l.tickReturned(100 * MS, 110 * MS); // 10 ms late: the scheduler's ordinary latency
        assertEquals(0, l.score(), "10 ms late is on time");
        l.tickReturned(100 * MS, 140 * MS);
        assertEquals(1, l.score(), "40 ms late: one point");
        assertEquals(800 * MS, l.handOverNanos(), "the hand-over window doubles");
        assertEquals(1600 * MS, l.failureTimeoutNanos(), "and the failure timeout");
        assertEquals(800 * MS, l.baseFailureTimeoutNanos());
        l.tickReturned(100 * MS, 450 * MS); // a 350 ms stall: one point plus one per whole period late
        assertEquals(5, l.score());
        for (int i = 0; i < 10; i++) {
            l.tickReturned(100 * MS, 300 * MS);
        }
        assertEquals(Liveness.MAX_SCORE, l.score(), "bounded");
        assertEquals((1 + Liveness.MAX_SCORE) * 400 * MS, l.handOverNanos());
        for (int i = 0; i < Liveness.DECAY_TICKS - 1; i++) {
            l.tickReturned(100 * MS, 101 * MS);
        }
        assertEquals(Liveness.MAX_SCORE, l.score(), "one point per DECAY_TICKS on-time ticks");
        l.tickReturned(100 * MS, 101 * MS);
        assertEquals(Liveness.MAX_SCORE - 1, l.score());
        for (int i = 0; i < Liveness.MAX_SCORE * Liveness.DECAY_TICKS; i++) {
            l.tickReturned(100 * MS, 100 * MS);
        }
        assertEquals(0, l.score(), "back to the configured timing on a quiet machine");
        assertEquals(800 * MS, l.failureTimeoutNanos());
    }

    @Test
    void onAnotherHostTheHeartbeatDecides() {
        long elsewhere = HostIdentity.hostId() ^ 0x5a5a;
        assertEquals(Liveness.Verdict.ANOTHER_HOST, Liveness.ofProcess(elsewhere, 1));
        assertTrue(Liveness.mayBeAlive(elsewhere, Integer.MAX_VALUE), "the admin view does not wait: not proven dead");
        Liveness l = new Liveness(10 * MS, 200 * MS);
        assertTrue(l.isDeadObserving(elsewhere, () -> 1, NONE, () -> 7), "a heartbeat that stood still for the timeout");
        AtomicLong hb = new AtomicLong();
        assertFalse(l.isDeadObserving(elsewhere, () -> 1, NONE, hb::incrementAndGet), "a moving heartbeat");
        long now = System.nanoTime();
        Liveness.Verdict v = Liveness.ofNode(elsewhere, 1, NONE);
        assertFalse(l.isDeadWatched(v, now - 100 * MS, 0, now));
        assertTrue(l.isDeadWatched(v, now - 300 * MS, 0, now));
        l.tickReturned(10 * MS, 18 * MS); // this detector ran 8 ms late (under a period): its timeout doubles
        assertFalse(l.isDeadWatched(v, now - 300 * MS, 0, now), "a late detector waits longer");
        assertTrue(l.isDeadWatched(v, now - 500 * MS, 0, now));
    }
}
