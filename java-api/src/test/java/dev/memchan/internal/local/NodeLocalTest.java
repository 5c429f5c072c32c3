package dev.memchan.internal.local;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.Posix;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node-local table and the node mutex: slots, per-process holdings, stale tables, dead owners. */
class NodeLocalTest {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private final String location = "test:nodelocal-" + ProcessHandle.current().pid() + "-" + System.nanoTime();

    @AfterEach
    void removeTable() throws Exception {
        Files.deleteIfExists(Path.of(NodeLocal.pathOf(location, 3)));
    }

    private static int deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return (int) p.pid();
    }

    @Test
    void anotherProcessCanAskWhetherANodesTableListsALiveProcess() throws Exception {
        assertFalse(NodeLocal.listsLiveProcess(location, 3, 7), "no table: nothing listed");
        int dead = deadPid();
        try (NodeLocal t = NodeLocal.open(location, 3, 4096, 256)) {
            t.locked(() -> {
                t.resetIfStale(7);
                LONG.setVolatile(t.segment(), NodeLocalDescriptor.slot(5), (long) dead);
                return null;
            });
            assertFalse(NodeLocal.listsLiveProcess(location, 3, 7), "only a dead process listed");
            int mine = t.locked(t::register);
            assertTrue(NodeLocal.listsLiveProcess(location, 3, 7), "a live process listed");
            assertFalse(NodeLocal.listsLiveProcess(location, 3, 8), "a table of another incarnation says nothing of this one");
            assertFalse(NodeLocal.listsLiveProcess(location, 4, 7), "another node's table");
            t.locked(() -> {
                t.unregister(mine);
                return null;
            });
            assertFalse(NodeLocal.listsLiveProcess(location, 3, 7));
        }
    }

    @Test
    void slotsHoldingsAndPageMapsAreKeptPerProcess() throws Exception {
        try (NodeLocal t = NodeLocal.open(location, 3, 4096, 256)) {
            t.locked(() -> {
                t.resetIfStale(7);
                int a = t.register();
                assertEquals(MemchanException.Kind.IN_USE, assertThrows(MemchanException.class, t::register).kind(),
                        "one slot per process");
                int b = a + 1; // another process's slot
                LONG.setVolatile(t.segment(), NodeLocalDescriptor.slot(b), ProcessHandle.current().parent().orElseThrow().pid());
                assertEquals(7, t.incarnation());
                t.setEntryBits(a, 5, NodeLocalDescriptor.BIT_USER | NodeLocalDescriptor.BIT_TX);
                t.setEntryBits(b, 5, NodeLocalDescriptor.BIT_USER);
                assertEquals(NodeLocalDescriptor.BIT_USER, t.entryBitsOfOthers(a, 5));
                assertEquals(NodeLocalDescriptor.BIT_USER | NodeLocalDescriptor.BIT_TX, t.entryBitsOfOthers(b, 5));
                t.setPageMapped(a, NodeLocalDescriptor.MAP_TX, 200, true);
                assertTrue(t.pageMapped(a, NodeLocalDescriptor.MAP_TX, 200));
                assertFalse(t.pageMapped(a, NodeLocalDescriptor.MAP_TX, 201));
                assertTrue(t.pageMappedByOthers(b, NodeLocalDescriptor.MAP_TX, 200));
                assertFalse(t.pageMappedByOthers(a, NodeLocalDescriptor.MAP_TX, 200));
                t.unregister(a);
                assertEquals(0, t.entryBitsOfOthers(b, 5));
                assertFalse(t.pageMappedByOthers(-1, NodeLocalDescriptor.MAP_TX, 200));
                t.resetIfStale(7); // same incarnation: kept
                assertEquals(NodeLocalDescriptor.BIT_USER, t.entryBits(b, 5));
                NodeMutex.acquire(t.segment(), t.clusterMutex(), t.pid(), () -> { });
                t.resetIfStale(8); // another one: cleared, but not the mutexes (the caller may hold one)
                assertEquals(t.pid(), NodeMutex.owner(t.segment(), t.clusterMutex()));
                NodeMutex.release(t.segment(), t.clusterMutex(), t.pid());
                assertEquals(0, t.entryBits(b, 5));
                assertEquals(0, t.pidOf(b));
                return null;
            });
        }
    }

    @Test
    void aDeadProcessesSlotIsFoundAndAFullTableRefuses() throws Exception {
        int dead = deadPid();
        try (NodeLocal t = NodeLocal.open(location, 3, 4096, 64)) {
            t.locked(() -> {
                t.resetIfStale(1);
                int me = t.register();
                assertEquals(-1, t.deadSlot());
                assertEquals(-1, t.otherLiveSlot(me));
                LONG.setVolatile(t.segment(), NodeLocalDescriptor.slot(me + 1), (long) dead);
                assertEquals(me + 1, t.deadSlot());
                assertEquals(-1, t.otherLiveSlot(me), "a dead process is not a live other");
                t.unregister(me);
                for (int s = 0; s < NodeLocalDescriptor.SLOTS; s++) {
                    if (s != me + 1) {
                        LONG.setVolatile(t.segment(), NodeLocalDescriptor.slot(s), (long) dead);
                    }
                }
                MemchanException full = assertThrows(MemchanException.class, t::register);
                assertTrue(full.getMessage().contains("all " + NodeLocalDescriptor.SLOTS + " process slots are taken"), full.getMessage());
                return null;
            });
        }
    }

    @Test
    void theNodeMutexNestsForItsOwnerAndIsTakenBackFromADeadOne() throws Exception {
        MemorySegment word = MemorySegment.ofArray(new long[1]);
        int me = Posix.getpid();
        AtomicInteger recovered = new AtomicInteger();
        NodeMutex.acquire(word, 0, me, recovered::incrementAndGet);
        NodeMutex.acquire(word, 0, me, recovered::incrementAndGet);
        assertEquals(me, NodeMutex.owner(word, 0));
        assertFalse(NodeMutex.tryAcquire(word, 0, me + 1), "another process waits");
        NodeMutex.release(word, 0, me);
        assertEquals(me, NodeMutex.owner(word, 0), "one level left");
        NodeMutex.release(word, 0, me);
        assertEquals(0, NodeMutex.owner(word, 0));
        assertThrows(IllegalStateException.class, () -> NodeMutex.release(word, 0, me));
        int dead = deadPid();
        LONG.setVolatile(word, 0L, ((long) dead << 32) | 1);
        NodeMutex.acquire(word, 0, me, recovered::incrementAndGet);
        assertEquals(1, recovered.get(), "the dead owner's leftovers were undone once");
        assertEquals(me, NodeMutex.owner(word, 0));
        NodeMutex.release(word, 0, me);
        LONG.setVolatile(word, 0L, ((long) dead << 32) | 3);
        assertTrue(NodeMutex.freeIfHeldBy(word, 0, dead, me, recovered::incrementAndGet));
        assertEquals(2, recovered.get(), "freed after its leftovers were undone");
        assertEquals(0, NodeMutex.owner(word, 0));
        assertFalse(NodeMutex.freeIfHeldBy(word, 0, dead, me, recovered::incrementAndGet), "no longer the dead one's");
        assertEquals(2, recovered.get());
    }

    @Test
    void aDeadOwnersMutexIsRecoveredOnlyByTheProcessThatTookItAndOnlyOnce() throws Exception {
        MemorySegment word = MemorySegment.ofArray(new long[1]);
        int me = Posix.getpid();
        int dead = deadPid();
        long deadWord = ((long) dead << 32) | 1;
        LONG.setVolatile(word, 0L, deadWord);
        // while this process recovers, the word is its own but not held for its threads: the dead owner's
        // agent-side release finds it taken, and a thread of the same process cannot nest into it
        AtomicInteger recovered = new AtomicInteger();
        NodeMutex.acquire(word, 0, me, () -> {
            recovered.incrementAndGet();
            assertEquals(me, NodeMutex.owner(word, 0), "taken before the recovery runs");
            assertFalse(NodeMutex.tryAcquire(word, 0, me), "a thread of the recovering process waits");
            assertFalse(NodeMutex.freeIfHeldBy(word, 0, dead, me + 1, recovered::incrementAndGet),
                    "a second recovery of the same death");
        });
        assertEquals(1, recovered.get());
        assertEquals(((long) me << 32) | 1, (long) LONG.getVolatile(word, 0L), "held once by this process");
        NodeMutex.release(word, 0, me);
        // a recovery that fails leaves the word as it was: the next process to find it recovers
        LONG.setVolatile(word, 0L, deadWord);
        assertThrows(IllegalStateException.class, () -> NodeMutex.freeIfHeldBy(word, 0, dead, me, () -> {
            throw new IllegalStateException("barrier timed out");
        }));
        assertEquals(deadWord, (long) LONG.getVolatile(word, 0L));
        assertThrows(IllegalStateException.class, () -> NodeMutex.acquire(word, 0, me, () -> {
            throw new IllegalStateException("barrier timed out");
        }));
        assertEquals(deadWord, (long) LONG.getVolatile(word, 0L));
    }
}
