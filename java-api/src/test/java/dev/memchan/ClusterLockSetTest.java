package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.conformance.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Bad input to a lock set of either kind, from threads of one process: refused with INVALID_ARGUMENT and
 * nothing changed (the holder read back, another thread still excluded, the lock still releasable by its holder).
 */
class ClusterLockSetTest {
    private Fabric fabric;
    private ExecutorService other;

    @BeforeEach
    void open() {
        fabric = Fabric.open(TestBackend.newFabric("lockset"), TestBackend.joinOptions());
        other = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        other.shutdownNow();
        fabric.close();
    }

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    private boolean tryAcquireInOtherThread(ClusterLockSet locks, int lock) throws Exception {
        return CompletableFuture.supplyAsync(() -> locks.tryAcquire(lock), other).get();
    }

    private MemchanException releaseInOtherThread(ClusterLockSet locks, int lock) throws Exception {
        return CompletableFuture.supplyAsync(() -> assertThrows(MemchanException.class, () -> locks.release(lock)), other).get();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void badInputIsRefusedAndChangesNothing(LockKind kind) throws Exception {
        assumeTrue(kind == LockKind.BID || TestBackend.remoteUnsupported() == null, "the CAS lock needs remote atomics: "
                + TestBackend.remoteUnsupported());
        try (ClusterLockSet locks = fabric.lockSet(TestBackend.key(), 2, kind)) {
            for (int bad : new int[] {-1, 2, Integer.MAX_VALUE}) {
                assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> locks.acquire(bad)).kind());
                assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> locks.tryAcquire(bad)).kind());
                assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> locks.release(bad)).kind());
                assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> locks.holder(bad)).kind());
            }
            assertEquals(-1, locks.holder(0));
            assertEquals(-1, locks.holder(1));

            // releasing a lock nobody holds
            assertEquals(Kind.INVALID_ARGUMENT, assertThrows(MemchanException.class, () -> locks.release(0)).kind());
            assertEquals(-1, locks.holder(0));

            locks.acquire(0);
            assertEquals(fabric.nodeId(), locks.holder(0));
            if (kind == LockKind.CAS) { // a bid set's local lock is reentrant by design; a CAS lock would deadlock: refused
                MemchanException again = assertThrows(MemchanException.class, () -> locks.acquire(0));
                assertEquals(Kind.INVALID_ARGUMENT, again.kind());
                assertTrue(again.getMessage().contains("already held"), again.getMessage());
                assertFalse(locks.tryAcquire(0), "a second tryAcquire by the holder");
            }
            // another thread can neither release nor take it
            MemchanException notHolder = releaseInOtherThread(locks, 0);
            assertEquals(Kind.INVALID_ARGUMENT, notHolder.kind());
            assertTrue(notHolder.getMessage().contains("not held by this thread"), notHolder.getMessage());
            assertFalse(tryAcquireInOtherThread(locks, 0), "lock 0 taken by a second thread while held");
            assertEquals(fabric.nodeId(), locks.holder(0));
            assertEquals(-1, locks.holder(1), "lock 1 is untouched");

            // the holder still releases it, and then the other thread can take it
            locks.release(0);
            assertEquals(-1, locks.holder(0));
            assertTrue(tryAcquireInOtherThread(locks, 0), "lock 0 free after the holder's release");
            assertEquals(fabric.nodeId(), locks.holder(0));
            assertFalse(locks.tryAcquire(0), "lock 0 held by the other thread");
            CompletableFuture.runAsync(() -> locks.release(0), other).get();
            assertEquals(-1, locks.holder(0));
        }
    }

    /**
     * Every compare-and-swap of a CAS lock is an atomic its home serves and counts in the lock page's counter,
     * whichever thread of the process makes it: acquisitions, releases and a failed try, with the threads taking
     * turns (each turn counts in another thread's stripe).
     */
    @Test
    void everyCompareAndSwapOfACasLockIsCountedAtItsHome() throws Exception {
        assumeTrue(TestBackend.remoteUnsupported() == null, "the CAS lock needs remote atomics: " + TestBackend.remoteUnsupported());
        int pairs = 500;
        int turns = 6;
        try (ClusterLockSet locks = fabric.lockSet(TestBackend.key(), 1, LockKind.CAS)) {
            Runnable pairsInOneThread = () -> {
                for (int i = 0; i < pairs; i++) {
                    locks.acquire(0);
                    locks.release(0);
                }
            };
            assertEquals(fabric.nodeId(), ((CasLockSet) locks).region().home(), "the only node is the home: its counters are read here");
            int page = ((CasLockSet) locks).region().firstPage();
            long before = fabric.remoteAtomicsServed(page);
            for (int turn = 0; turn < turns; turn++) {
                pairsInOneThread.run();
                CompletableFuture.runAsync(pairsInOneThread, other).get();
            }
            locks.acquire(0);
            assertFalse(tryAcquireInOtherThread(locks, 0), "lock 0 taken by a second thread while held");
            locks.release(0);
            assertEquals(before + 2L * pairs * 2 * turns + 3, fabric.remoteAtomicsServed(page),
                    "two atomics per acquire + release, and one for the failed try");
        }
    }
}
