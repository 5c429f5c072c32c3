package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.MessageChannel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Message-channel throughput: the sender claims room for each of {@code count} messages of
 * {@code size} bytes, writes message i's {@link MessagePattern} in place and commits ({@link #send}), or
 * writes the pattern into a buffer of its own and offers a copy of it ({@link #sendCopies}); the receiver
 * takes messages in batches ({@link MessageChannel.Receiver#poll}) and checks every byte of every
 * message in place. Time runs from the first claim until the receiver's credit shows every byte consumed.
 */
public final class ChannelThroughput {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Messages per poll: the consumer position goes back at most once per batch. */
    static final int BATCH = 256;
    /** A silent sender is checked for every 4,096 empty polls. */
    private static final int SILENCE_CHECK_MASK = 4095;

    private ChannelThroughput() {
    }

    /** Bytes of payload per second. */
    public static double send(Fabric f, long key, int receiverNode, int capacity, int size, long count) {
        try (MessageChannel.Sender tx = MessageChannel.sender(f, key, receiverNode, capacity)) {
            MemorySegment ring = tx.buffer();
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                long at = tx.tryClaim(size);
                if (at < 0) {
                    at = awaitClaim(tx, size);
                }
                MessagePattern.fill(ring, at, size, i);
                tx.commit();
            }
            tx.awaitConsumed(TIMEOUT);
            long t1 = System.nanoTime();
            return (double) size * count * 1e9 / (t1 - t0);
        }
    }

    /**
     * Bytes of payload per second, each message written into a private off-heap buffer and sent with
     * {@link MessageChannel.Sender#offer} (a copy into the ring).
     */
    public static double sendCopies(Fabric f, long key, int receiverNode, int capacity, int size, long count) {
        try (MessageChannel.Sender tx = MessageChannel.sender(f, key, receiverNode, capacity); Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(Math.max(size, 1), Long.BYTES);
            Idle idle = new Idle();
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                MessagePattern.fill(message, 0, size, i);
                if (!tx.offer(message, 0, size)) {
                    long deadline = System.nanoTime() + TIMEOUT.toNanos();
                    while (!tx.offer(message, 0, size)) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new MemchanException(MemchanException.Kind.TIMEOUT, "receiver made no room within "
                                    + TIMEOUT.toSeconds() + " s");
                        }
                        idle.idle();
                    }
                    idle.reset();
                }
            }
            tx.awaitConsumed(TIMEOUT);
            long t1 = System.nanoTime();
            return (double) size * count * 1e9 / (t1 - t0);
        }
    }

    private static long awaitClaim(MessageChannel.Sender tx, int size) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Idle idle = new Idle();
        long at;
        while ((at = tx.tryClaim(size)) < 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new MemchanException(MemchanException.Kind.TIMEOUT, "receiver made no room within " + TIMEOUT.toSeconds() + " s");
            }
            idle.idle();
        }
        return at;
    }

    /** Receives and checks {@code count} messages; returns the bytes received. */
    public static long receive(Fabric f, long key, int senderNode, int capacity, long count) {
        return receive(f, key, senderNode, capacity, count, Duration.ZERO);
    }

    /**
     * Receives and checks {@code count} messages; returns the bytes received. Throws a time-out when no
     * message arrives for {@code silence} ({@link Duration#ZERO}: no bound): a server across hosts needs
     * the bound, since a sender that died never sends the rest.
     */
    public static long receive(Fabric f, long key, int senderNode, int capacity, long count, Duration silence) {
        long bound = silence.toNanos();
        try (MessageChannel.Receiver rx = MessageChannel.receiver(f, key, senderNode, capacity)) {
            Checker checker = new Checker();
            Idle idle = new Idle();
            long heard = System.nanoTime();
            int emptyPolls = 0;
            while (checker.next < count) {
                if (rx.poll(checker, BATCH) != 0) {
                    idle.reset();
                    emptyPolls = 0;
                    heard = System.nanoTime();
                    continue;
                }
                // the clock is read once per SILENCE_CHECK_MASK + 1 empty polls, never between messages
                if (bound > 0 && (++emptyPolls & SILENCE_CHECK_MASK) == 0 && System.nanoTime() - heard > bound) {
                    throw new MemchanException(MemchanException.Kind.TIMEOUT, "the sender on node " + senderNode
                            + " was silent for " + silence.toSeconds() + " s (" + checker.next + " of " + count
                            + " messages received)");
                }
                idle.idle();
            }
            return checker.bytes;
        }
    }

    /** Checks each message against the pattern of the next sequence number. */
    private static final class Checker implements MessageChannel.Handler {
        long next;
        long bytes;

        @Override
        public void onMessage(MemorySegment buffer, long offset, int length) {
            if (!MessagePattern.matches(buffer, offset, length, next)) {
                throw MessagePattern.mismatch("memchan channel", next, length);
            }
            next++;
            bytes += length;
        }
    }
}
