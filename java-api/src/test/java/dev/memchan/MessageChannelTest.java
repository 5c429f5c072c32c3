package dev.memchan;

import dev.memchan.conformance.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The channel's framing, wrap-around, padding and flow control, with both ends in this JVM (two
 * nodes, two threads): many laps of a small ring with random sizes up to the maximum, every byte checked.
 */
class MessageChannelTest {
    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    @Test
    void randomMessagesCrossManyLapsInOrderAndIntact() throws Exception {
        String location = TestBackend.newFabric("chan");
        long key = TestBackend.key();
        int capacity = 8192;
        int messages = 20_000;
        try (Fabric a = Fabric.open(location, TestBackend.joinOptions());
             Fabric b = Fabric.open(location, TestBackend.joinOptions())) {
            CompletableFuture<MessageChannel.Receiver> rxf = CompletableFuture.supplyAsync(
                    () -> MessageChannel.receiver(b, key, a.nodeId(), capacity));
            MessageChannel.Sender tx = MessageChannel.sender(a, key, b.nodeId(), capacity);
            MessageChannel.Receiver rx = rxf.get();
            assertThrows(MemchanException.class, () -> tx.offer(MemorySegment.ofArray(new byte[capacity]), 0, capacity));
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
                Random r = new Random(42);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment buf = arena.allocate(capacity);
                    for (int i = 0; i < messages; i++) {
                        int expected = r.nextInt(tx.maxMessage() + 1);
                        int n = rx.receive(buf, Duration.ofSeconds(30));
                        assertEquals(expected, n, "length of message " + i);
                        for (int j = 0; j < n; j++) {
                            assertEquals((byte) (i * 7 + j), buf.get(JAVA_BYTE, j), "message " + i + " byte " + j);
                        }
                    }
                }
                return (long) messages;
            });
            Random r = new Random(42);
            byte[] msg = new byte[capacity];
            for (int i = 0; i < messages; i++) {
                int n = r.nextInt(tx.maxMessage() + 1);
                for (int j = 0; j < n; j++) {
                    msg[j] = (byte) (i * 7 + j);
                }
                tx.send(MemorySegment.ofArray(msg), 0, n, Duration.ofSeconds(30));
            }
            assertEquals(messages, received.get());
            tx.awaitConsumed(Duration.ofSeconds(5));
            // In-place polling sees nothing further.
            assertEquals(0, rx.poll((buf, off, len) -> { }, 10));
            assertTrue(tx.offer(MemorySegment.ofArray(msg), 0, 16));
            int[] got = new int[1];
            assertEquals(1, rx.poll((buf, off, len) -> got[0] = len, 10));
            assertEquals(16, got[0]);
        }
    }
}
