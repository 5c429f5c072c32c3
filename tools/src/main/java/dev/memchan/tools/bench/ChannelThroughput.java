package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.MessageChannel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Message-channel throughput: the sender sends {@code count} messages of {@code size} bytes; the
 * receiver reads each in place (first and last word, so the payload really crosses to its core).
 * Time runs from the first send until the receiver's credit shows every byte consumed.
 */
public final class ChannelThroughput {
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private ChannelThroughput() {
    }

    /** Bytes of payload per second. */
    public static double send(Fabric f, long key, int receiverNode, int capacity, int size, long count) {
        try (MessageChannel.Sender tx = MessageChannel.sender(f, key, receiverNode, capacity);
             Arena arena = Arena.ofConfined()) {
            MemorySegment msg = arena.allocate(Math.max(size, 8), 64);
            for (long i = 0; i < msg.byteSize(); i += 8) {
                msg.set(JAVA_LONG, i, i * 31);
            }
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                tx.send(msg, 0, size, SEND_TIMEOUT);
            }
            tx.awaitConsumed(Duration.ofSeconds(30));
            long t1 = System.nanoTime();
            return (double) size * count * 1e9 / (t1 - t0);
        }
    }

    /** Receives {@code count} messages; returns a checksum so the reads cannot be optimized away. */
    public static long receive(Fabric f, long key, int senderNode, int capacity, long count) {
        try (MessageChannel.Receiver rx = MessageChannel.receiver(f, key, senderNode, capacity)) {
            long[] sum = new long[1];
            long[] got = new long[1];
            MessageChannel.Handler h = (buf, off, len) -> {
                if (len >= 8) {
                    sum[0] += buf.get(JAVA_LONG, off) + buf.get(JAVA_LONG, off + ((len - 8) & ~7L));
                }
                got[0]++;
            };
            int idle = 0;
            while (got[0] < count) {
                if (rx.poll(h, 256) == 0) {
                    if (++idle > 1000) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                } else {
                    idle = 0;
                }
            }
            return sum[0];
        }
    }
}
