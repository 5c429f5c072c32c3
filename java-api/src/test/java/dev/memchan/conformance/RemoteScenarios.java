package dev.memchan.conformance;

import dev.memchan.ClusterLockSet;
import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.LockKind;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.RemoteAccess;
import dev.memchan.RemoteMapping;
import dev.memchan.Route;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static dev.memchan.conformance.NodeMain.await;
import static dev.memchan.conformance.NodeMain.fail;
import static dev.memchan.conformance.NodeMain.say;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** {@link NodeMain}'s scenarios for remote read, remote atomics and the CAS lock ({@link RemoteConformanceTest}). */
final class RemoteScenarios {
    /** Offset of the home's signal word, a cache line away from the data word at 0. */
    static final long SIGNAL = 64;

    private RemoteScenarios() {
    }

    /** Runs scenario {@code a[0]} when it is one of these; false when it is not. */
    static boolean run(Fabric f, String[] a) throws Exception {
        switch (a[0]) {
            case "faa-home" -> faa(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), -1);
            case "faa" -> faa(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]));
            case "faa-until-killed" -> faaUntilKilled(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
            case "read-home" -> readHome(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
            case "read-remote" -> readRemote(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]));
            case "grant-home" -> grantHome(f, Long.parseLong(a[2]));
            case "cas-watch" -> casWatch(f, Long.parseLong(a[2]));
            case "hot-home" -> hotHome(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Fetch-and-add on word 0 of a one-page region homed at {@code home} (-1: this node is the home: it
     * grants atomics and takes the same remote path for its own adds).
     */
    private static void faa(Fabric f, long key, int iterations, int home) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        if (home < 0) {
            r.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
        }
        RemoteMapping m = r.attachRemote(home < 0 ? f.nodeId() : home);
        say("READY node=" + f.nodeId());
        await("GO");
        long lastOld = -1;
        for (int i = 0; i < iterations; i++) {
            long old = m.getAndAddLong(0, 1);
            if (old <= lastOld) {
                fail("fetch-and-add returned " + old + " after " + lastOld + ": the word went backwards");
            }
            lastOld = old;
        }
        say("DONE iterations=" + iterations);
        await("REPORT");
        say("COUNT " + m.getLongAcquire(0) + " atomics=" + (home < 0 ? f.remoteAtomicsServed(r.firstPage()) : -1));
        await("QUIT");
    }

    /** Fetch-and-add on word 0 of the region homed at {@code home} until SIGKILL ends this process. */
    private static void faaUntilKilled(Fabric f, long key, int home) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        RemoteMapping m = r.attachRemote(home);
        say("READY node=" + f.nodeId());
        await("GO");
        for (long i = 1; ; i++) {
            m.getAndAddLong(0, 1);
            if (i == 1000) {
                say("RUNNING");
            }
        }
    }

    /** Two halves equal: a torn word would show different ones. */
    static long pattern(long v) {
        return v << 32 | v;
    }

    /** The home: stores v (data word), fences, then signals v (signal word), for v = 1..n. */
    private static void readHome(Fabric f, long key, int n) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        r.attachReceive(false, RemoteAccess.READ);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
        say("READY node=" + f.nodeId());
        await("GO");
        for (long v = 1; v <= n; v++) {
            out.putLongVolatile(0, pattern(v));
            out.fence();
            out.putLongRelease(SIGNAL, v);
        }
        say("DONE stores=" + n);
        await("QUIT");
    }

    /**
     * The reader: loads the signal s, then the data d (remote loads, and every 16th time a remote fetch of
     * both words): d is never torn, never older than s, never older than an earlier d.
     */
    private static void readRemote(Fabric f, long key, int n, int home) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        RemoteMapping m = r.attachRemote(home);
        say("READY node=" + f.nodeId());
        await("GO");
        long last = 0;
        long reads = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(SIGNAL + 8, 8);
            while (true) {
                long s = m.getLongAcquire(SIGNAL);
                long d;
                if ((reads & 15) == 15) {
                    m.awaitFetched(m.fetch(0, copy, 0, copy.byteSize()), TestBackend.allowance(Duration.ofSeconds(5)));
                    d = copy.get(JAVA_LONG, 0);
                } else {
                    d = m.getLongAcquire(0);
                }
                reads++;
                long v = d >>> 32;
                if ((d & 0xFFFF_FFFFL) != v) {
                    fail(String.format("torn read 0x%016x after %d reads", d, reads));
                }
                if (v < s) {
                    fail("stale read: data " + v + " after the signal showed " + s + " (read " + reads + ")");
                }
                if (v < last) {
                    fail("data went backwards: " + v + " after " + last);
                }
                last = v;
                if (s == n) {
                    break;
                }
            }
        }
        say("OK reads=" + reads + " last=" + last);
        await("QUIT");
    }

    /**
     * A home for the bad-input test: region of 2 pages, page 0 granted READ only, page 1 received without
     * grants; word 0 = 42 and word 8 of page 1 = 7 stored by the home.
     */
    private static void grantHome(Fabric f, long key) throws IOException {
        Region r = f.allocate(key, 2L * f.pageSize(), 0660);
        IncomingMapping readable = r.attachReceive(false, 0, f.pageSize(), RemoteAccess.READ);
        IncomingMapping plain = r.attachReceive(false, f.pageSize(), f.pageSize());
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
        out.putLongVolatile(0, 42);
        out.putLongVolatile(f.pageSize() + 8, 7);
        f.ackBarrier();
        // the node's count is cumulative (a register on a device): what this test adds is the difference
        long refusedBefore = f.remoteRefused();
        say("READY node=" + f.nodeId());
        await("REPORT");
        say("REFUSED " + (f.remoteRefused() - refusedBefore) + " reads=" + f.remoteReadsServed(r.firstPage()) + " atomics="
                + (f.remoteAtomicsServed(r.firstPage()) + f.remoteAtomicsServed(r.firstPage() + 1)) + " words="
                + readable.getLongVolatile(0) + "," + plain.getLongVolatile(8));
        await("QUIT");
    }

    /**
     * A home of a 2-page region that asks for the counter notification on both pages, threshold
     * {@code threshold}: reports the first hot page and its counters when notified.
     */
    private static void hotHome(Fabric f, long key, int threshold) throws IOException {
        Region r = f.allocate(key, 2L * f.pageSize(), 0660);
        r.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC, RemoteAccess.COUNT_NOTIFY);
        f.setPageCountThreshold(threshold);
        say("READY node=" + f.nodeId() + " first=" + r.firstPage());
        int page = f.awaitHotPage(TestBackend.allowance(Duration.ofSeconds(60)));
        say("HOT page=" + page + " reads=" + f.remoteReadsServed(page) + " atomics=" + f.remoteAtomicsServed(page));
        await("REPORT");
        say("COUNTS reads=" + f.remoteReadsServed(r.firstPage()) + "," + f.remoteReadsServed(r.firstPage() + 1)
                + " atomics=" + f.remoteAtomicsServed(r.firstPage()) + "," + f.remoteAtomicsServed(r.firstPage() + 1)
                + " again=" + f.awaitHotPage(Duration.ZERO));
        await("QUIT");
    }

    /**
     * The home of a CAS lock set: after GO (a victim holds the lock), waits for the holder's LEAVE, then
     * takes the lock and reports when.
     */
    private static void casWatch(Fabric f, long lockKey) throws Exception {
        ClusterLockSet locks = f.lockSet(lockKey, 1, LockKind.CAS);
        say("READY node=" + f.nodeId());
        await("GO");
        int victim = locks.holder(0);
        if (victim < 0 || victim == f.nodeId() || locks.tryAcquire(0)) {
            fail("lock 0 must be held by another node, holder " + victim);
        }
        say("HELD holder=" + victim);
        NodeMain.awaitLeaveThenAcquire(f, locks, victim);
        await("QUIT");
    }
}
