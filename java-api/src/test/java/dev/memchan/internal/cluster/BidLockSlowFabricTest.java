package dev.memchan.internal.cluster;

import dev.memchan.layout.SystemPagesDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The bid lock on a fabric whose round trip is milliseconds, as on the co-simulated board behind a hub:
 * each node has its own transmit and receive rows, and one thread carries every bid to every receive row
 * after a fixed delay, in one order (Memory Channel's rule 2). Bids that collide stay in each other's way
 * for a round trip, far longer than the backoff's first steps; four nodes must still each take the lock
 * a number of times, one at a time: such collisions do not livelock (at 3 and 30 ms, 40 acquisitions
 * take about 0.5 and 3.5 s).
 */
class BidLockSlowFabricTest {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final int NODES = 4;
    private static final long DELAY_NANOS = 3_000_000L;
    private static final int ROUNDS = 10;

    @Test
    void fourNodesTakeTurnsWhenABidTakesMillisecondsToComeBack() throws Exception {
        long row = SystemPagesDescriptor.lockRowSize(NODES);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] tx = new MemorySegment[NODES];
            MemorySegment[] rx = new MemorySegment[NODES];
            for (int n = 0; n < NODES; n++) {
                tx[n] = arena.allocate(row, 8);
                rx[n] = arena.allocate(row, 8);
            }
            Cable cable = new Cable(tx, rx);
            cable.start();
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger taken = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> nodes = new ArrayList<>();
            for (int n = 0; n < NODES; n++) {
                BidLock lock = new BidLock(new TransmitStores(tx[n]), rx[n], 0, NODES, n, 100 + n, false);
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; i < ROUNDS; i++) {
                            lock.acquire(60_000_000_000L); // progress bound: a livelock ends here
                            if (inside.incrementAndGet() != 1) {
                                throw new AssertionError("two nodes hold the lock");
                            }
                            Thread.sleep(1);
                            inside.decrementAndGet();
                            taken.incrementAndGet();
                            lock.release();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "node-" + n);
                nodes.add(t);
                t.start();
            }
            for (Thread t : nodes) {
                t.join();
            }
            cable.interrupt();
            cable.join();
            assertNull(failure.get(), () -> "a node failed: " + failure.get());
            assertEquals(NODES * ROUNDS, taken.get());
        }
    }

    /** Carries each change of a node's bid to every receive row after DELAY_NANOS, in the order it saw them. */
    private static final class Cable extends Thread {
        private final MemorySegment[] tx;
        private final MemorySegment[] rx;
        private final long[] last;
        private final ArrayDeque<long[]> inFlight = new ArrayDeque<>(); // {due, node, value}

        Cable(MemorySegment[] tx, MemorySegment[] rx) {
            super("cable");
            this.tx = tx;
            this.rx = rx;
            this.last = new long[tx.length];
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                long now = System.nanoTime();
                for (int n = 0; n < tx.length; n++) {
                    long v = (long) LONG.getVolatile(tx[n], SystemPagesDescriptor.bidInRow(n));
                    if (v != last[n]) {
                        last[n] = v;
                        inFlight.add(new long[] {now + DELAY_NANOS, n, v});
                    }
                }
                while (!inFlight.isEmpty() && inFlight.peek()[0] - now <= 0) {
                    long[] s = inFlight.poll();
                    for (MemorySegment r : rx) {
                        LONG.setVolatile(r, SystemPagesDescriptor.bidInRow(s[1]), s[2]);
                    }
                }
                Thread.onSpinWait();
            }
        }
    }
}
