package dev.memchan.internal.cluster;

import dev.memchan.internal.HostIdentity;
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
        assertFalse(l.isDeadObserving(here, () -> me, () -> 0), "a live pid: alive, whatever the heartbeat");
        assertFalse(l.isDeadWatched(here, me, 0, 0, Long.MAX_VALUE));
        long t0 = System.nanoTime();
        AtomicLong beats = new AtomicLong();
        assertTrue(l.isDeadObserving(here, () -> dead, beats::incrementAndGet),
                "pid gone and still named: dead, though the heartbeat moves (the ivshmem driver beats for its node)");
        assertTrue(System.nanoTime() - t0 < 5_000 * MS, "a local verdict waits the hand-over window, not the failure timeout");
        AtomicLong named = new AtomicLong(dead);
        Thread.ofPlatform().start(() -> {
            Liveness.sleepNanos(5 * MS);
            named.set(me); // a survivor names itself
        });
        // a window of 1 s, not l's 20 ms: the naming thread must get a CPU within it (two CPUs under load: not always in 15 ms)
        assertFalse(new Liveness(10 * MS, 2_000 * MS).isDeadObserving(here, named::get, () -> 0),
                "another live process named within the window");
        long now = System.nanoTime();
        assertFalse(l.isDeadWatched(here, dead, now - 60_000 * MS, now - 5 * MS, now), "within the hand-over window");
        assertTrue(l.isDeadWatched(here, dead, now, now - 30 * MS, now), "past it, whatever the heartbeat");
    }

    @Test
    void onAnotherHostTheHeartbeatDecides() {
        long elsewhere = HostIdentity.hostId() ^ 0x5a5a;
        assertEquals(Liveness.Verdict.ANOTHER_HOST, Liveness.ofProcess(elsewhere, 1));
        assertTrue(Liveness.mayBeAlive(elsewhere, Integer.MAX_VALUE), "the admin view does not wait: not proven dead");
        Liveness l = new Liveness(10 * MS, 200 * MS);
        assertTrue(l.isDeadObserving(elsewhere, () -> 1, () -> 7), "a heartbeat that stood still for the timeout");
        AtomicLong hb = new AtomicLong();
        assertFalse(l.isDeadObserving(elsewhere, () -> 1, hb::incrementAndGet), "a moving heartbeat");
        long now = System.nanoTime();
        assertFalse(l.isDeadWatched(elsewhere, 1, now - 100 * MS, 0, now));
        assertTrue(l.isDeadWatched(elsewhere, 1, now - 300 * MS, 0, now));
    }
}
