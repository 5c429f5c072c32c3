package dev.memchan.internal.soft;

import dev.memchan.DataNotifier;
import dev.memchan.MemchanException;
import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.spi.NotificationQueue;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The notification queue's protocol on a zeroed page of plain memory: threads stand in for processes. */
class SoftNotificationQueueTest {
    private static final int PAGE = 4096;
    /** The queue's page at a page offset of the segment, as the data pages hold it. */
    private static final long BASE = PAGE;

    private static MemorySegment pages(Arena arena) {
        return arena.allocate(3L * PAGE, PAGE);
    }

    @Test
    void entriesCarryPayloadAndSenderInTheirBits() {
        assertEquals(DataNotifier.PAYLOAD_BITS, Long.bitCount(NotifyQueueDescriptor.MAX_PAYLOAD));
        long e = NotifyQueueDescriptor.entry(31, NotifyQueueDescriptor.MAX_PAYLOAD);
        assertEquals(31, NotifyQueueDescriptor.sender(e));
        assertEquals(NotifyQueueDescriptor.MAX_PAYLOAD, NotifyQueueDescriptor.payload(e));
        assertTrue(e >= 0, "an entry is never EMPTY");
        assertEquals(248, NotifyQueueDescriptor.capacity(4096));
        assertEquals(504, NotifyQueueDescriptor.capacity(8192));
        assertThrows(MemchanException.class, () -> SoftNotificationQueue.checkPayload(NotifyQueueDescriptor.MAX_PAYLOAD + 1));
        assertThrows(MemchanException.class, () -> SoftNotificationQueue.checkPayload(-1));
    }

    @Test
    void aZeroedPageIsAnEmptyQueueAndAFullOneCountsExactlyWhatItRefuses() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = pages(arena);
            NotificationQueue q = new SoftNotificationQueue(m, BASE, PAGE);
            int cap = q.capacity();
            assertEquals(NotificationQueue.EMPTY, q.poll());
            for (int lap = 0; lap < 3; lap++) { // positions wrap the slots three times
                for (int i = 0; i < cap; i++) {
                    assertTrue(SoftNotificationQueue.offer(m, BASE, cap, NotifyQueueDescriptor.entry(lap, i)));
                }
                assertFalse(SoftNotificationQueue.offer(m, BASE, cap, NotifyQueueDescriptor.entry(lap, cap)));
                assertFalse(SoftNotificationQueue.offer(m, BASE, cap, NotifyQueueDescriptor.entry(lap, cap + 1)));
                assertEquals(2L * (lap + 1), q.overflowCount());
                assertEquals(cap, q.pending());
                for (int i = 0; i < cap; i++) {
                    assertEquals(NotifyQueueDescriptor.entry(lap, i), q.poll());
                }
                assertEquals(NotificationQueue.EMPTY, q.poll());
                assertEquals(0, q.pending());
            }
            // the pages beside the queue's are untouched
            assertEquals(-1, m.asSlice(0, PAGE).mismatch(MemorySegment.ofArray(new byte[PAGE])));
            assertEquals(-1, m.asSlice(2L * PAGE, PAGE).mismatch(MemorySegment.ofArray(new byte[PAGE])));
        }
    }

    @Test
    void concurrentProducersKeepTheirOrderAndEveryNotificationIsTakenOrCounted() throws Exception {
        int producers = 3;
        int each = 200_000;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment m = pages(arena);
            SoftNotificationQueue q = new SoftNotificationQueue(m, BASE, PAGE);
            AtomicLong refused = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int sender = p;
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < each; i++) {
                        if (!SoftNotificationQueue.offer(m, BASE, q.capacity(), NotifyQueueDescriptor.entry(sender, i))) {
                            refused.incrementAndGet();
                        }
                    }
                }));
            }
            long[] last = {-1, -1, -1};
            long taken = 0;
            boolean running = true;
            while (running) {
                running = threads.stream().anyMatch(Thread::isAlive);
                long e;
                while ((e = q.poll()) != NotificationQueue.EMPTY) {
                    int s = NotifyQueueDescriptor.sender(e);
                    long payload = NotifyQueueDescriptor.payload(e);
                    assertTrue(payload > last[s], "sender " + s + ": " + payload + " after " + last[s]);
                    last[s] = payload;
                    taken++;
                }
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(NotificationQueue.EMPTY, q.poll());
            assertEquals(refused.get(), q.overflowCount(), "the queue counts exactly the refusals its producers saw");
            assertEquals((long) producers * each, taken + q.overflowCount(), "every notification is taken or counted");
        }
    }
}
