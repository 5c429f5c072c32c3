package dev.memchan.internal.cluster;

import dev.memchan.layout.SystemPagesDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bid lock where a node's local copy lags its stores (a board's loopback, a hub's stream): the test is the
 * cable. Every store is put in one order (rule 2), and each receive row is brought up to a point of that order
 * when the test says, so the interleaving is fixed and nothing depends on timing. Node A is a {@link BidLock};
 * node B's stores are the ones its own lock would make at each step. A bids again while its withdrawal is still
 * on its way, so its slot's copy still shows its previous bid, of the same value: that copy is not this
 * attempt's bid, and B, whose bid was ordered before A's new one, holds the lock.
 */
class BidLockLaggingCopyTest {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final int NODES = 2;
    private static final int A = 0;
    private static final int B = 1;
    private static final long BID_A = 100;
    private static final long BID_B = 200;
    /** A bound on progress only: the steps below never wait for the cable, which the test thread drives. */
    private static final long STEP_BOUND_SECONDS = 60;

    /** The one order of every store: {node, value}. */
    private final List<long[]> order = new ArrayList<>();
    private final int[] delivered = new int[NODES];

    @Test
    void aBidMadeWhileTheWithdrawalIsOnItsWayIsNotTakenForCameBack() throws Exception {
        long row = SystemPagesDescriptor.lockRowSize(NODES);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment txA = arena.allocate(row, 8);
            MemorySegment[] rx = {arena.allocate(row, 8), arena.allocate(row, 8)};
            BidLock a = new BidLock(new TransmitStores(txA), rx[A], 0, NODES, A, BID_A, false);

            order.add(new long[] {B, BID_B});                         // B bids (its row showed nobody)
            CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(a::tryAcquire);
            awaitStore(txA, BID_A);                                   // A bids (its row showed nobody yet)
            order.add(new long[] {A, BID_A});
            deliver(rx, B, 2);                                        // B sees its bid and A's: it withdraws
            order.add(new long[] {B, 0});
            deliver(rx, A, 2);                                        // A sees its bid and B's: it withdraws
            assertFalse(first.get(STEP_BOUND_SECONDS, TimeUnit.SECONDS), "A saw B's bid beside its own");
            assertEquals(0, (long) LONG.getVolatile(txA, SystemPagesDescriptor.bidInRow(A)), "A withdrew");
            order.add(new long[] {A, 0});

            deliver(rx, A, 3);            // A's row: B's withdrawal, not yet A's own; A's slot still shows BID_A
            deliver(rx, B, 4);            // B's row: both withdrawals; B bids again
            order.add(new long[] {B, BID_B});
            boolean aHolds = a.tryAcquire();
            if ((long) LONG.getVolatile(txA, SystemPagesDescriptor.bidInRow(A)) == BID_A) {
                order.add(new long[] {A, BID_A}); // A's new bid, ordered after B's
            }
            deliver(rx, B, 5);            // B's bid comes back to B before anything A stored now
            boolean bHolds = slot(rx[B], B) == BID_B && slot(rx[B], A) == 0;
            assertTrue(bHolds, "B's bid was ordered first and B saw itself alone");
            assertFalse(aHolds, "A took the lock on its previous bid's copy while B holds it");

            order.add(new long[] {B, 0});                             // B releases
            deliver(rx, A, order.size());
            deliver(rx, B, order.size());
            CompletableFuture<Boolean> again = CompletableFuture.supplyAsync(a::tryAcquire);
            awaitStore(txA, BID_A);
            order.add(new long[] {A, BID_A});
            deliver(rx, A, order.size());
            assertTrue(again.get(STEP_BOUND_SECONDS, TimeUnit.SECONDS), "A alone, its withdrawal back: A holds");
            assertTrue(a.heldByMe());
        }
    }

    private static long slot(MemorySegment rx, int node) {
        return (long) LONG.getVolatile(rx, SystemPagesDescriptor.bidInRow(node));
    }

    /** Brings node {@code n}'s receive row up to (not including) position {@code upTo} of the order. */
    private void deliver(MemorySegment[] rx, int n, int upTo) {
        for (; delivered[n] < upTo; delivered[n]++) {
            long[] store = order.get(delivered[n]);
            LONG.setVolatile(rx[n], SystemPagesDescriptor.bidInRow(store[0]), store[1]);
        }
    }

    /** Waits (a bound on progress) until A's transmit row holds {@code value} in A's slot. */
    private static void awaitStore(MemorySegment txA, long value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_BOUND_SECONDS);
        while ((long) LONG.getVolatile(txA, SystemPagesDescriptor.bidInRow(A)) != value) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("A did not store " + value);
            }
            Thread.onSpinWait();
        }
    }
}
