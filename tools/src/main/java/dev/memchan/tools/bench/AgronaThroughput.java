package dev.memchan.tools.bench;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The reference a Java user would pick instead of the channel: Agrona's {@link OneToOneRingBuffer} on a
 * MAP_SHARED file in /dev/shm (the soft fabric's kind of memory), between two processes. Same work as
 * {@link ChannelThroughput}: the sender claims ({@code tryClaim}), writes the {@link MessagePattern} in
 * place and commits ({@link #send}), or writes it into a buffer of its own and copies it in with
 * {@code write} ({@link #sendCopies}); the receiver reads in batches ({@code read(handler, limit)}) and checks every byte.
 * Agrona's bounds checks are on, as a user gets them by default.
 */
public final class AgronaThroughput {
    private static final int MSG_TYPE = 1;
    private static final long TIMEOUT_NANOS = 30_000_000_000L;

    private AgronaThroughput() {
    }

    /** Creates the zeroed ring file for a ring of {@code capacity} bytes (plus Agrona's trailer). */
    public static void create(Path file, int capacity) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.allocate(1), capacity + RingBufferDescriptor.TRAILER_LENGTH - 1L);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bytes of payload per second, each message claimed, written in place and committed. */
    public static double send(Path file, int size, long count) {
        try (Arena arena = Arena.ofShared()) {
            OneToOneRingBuffer ring = map(file, arena);
            MutableDirectBuffer buffer = ring.buffer();
            Idle idle = new Idle();
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                int at = ring.tryClaim(MSG_TYPE, size);
                if (at < 0) {
                    long deadline = System.nanoTime() + TIMEOUT_NANOS;
                    while ((at = ring.tryClaim(MSG_TYPE, size)) < 0) {
                        awaitRoom(deadline, idle);
                    }
                    idle.reset();
                }
                fill(buffer, at, size, i);
                ring.commit(at);
            }
            awaitConsumed(ring, idle);
            long t1 = System.nanoTime();
            return (double) size * count * 1e9 / (t1 - t0);
        }
    }

    /**
     * Bytes of payload per second, each message written into a private off-heap buffer and sent with
     * {@link OneToOneRingBuffer#write} (a copy into the ring).
     */
    public static double sendCopies(Path file, int size, long count) {
        try (Arena arena = Arena.ofShared()) {
            OneToOneRingBuffer ring = map(file, arena);
            MemorySegment segment = arena.allocate(Math.max(size, 1), Long.BYTES);
            UnsafeBuffer message = new UnsafeBuffer(segment.address(), Math.toIntExact(segment.byteSize()));
            Idle idle = new Idle();
            long t0 = System.nanoTime();
            for (long i = 0; i < count; i++) {
                fill(message, 0, size, i);
                if (!ring.write(MSG_TYPE, message, 0, size)) {
                    long deadline = System.nanoTime() + TIMEOUT_NANOS;
                    while (!ring.write(MSG_TYPE, message, 0, size)) {
                        awaitRoom(deadline, idle);
                    }
                    idle.reset();
                }
            }
            awaitConsumed(ring, idle);
            long t1 = System.nanoTime();
            return (double) size * count * 1e9 / (t1 - t0);
        }
    }

    private static void awaitRoom(long deadline, Idle idle) {
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("Agrona receiver made no room within 30 s");
        }
        idle.idle();
    }

    private static void awaitConsumed(OneToOneRingBuffer ring, Idle idle) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (ring.consumerPosition() != ring.producerPosition()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Agrona receiver did not consume everything within 30 s");
            }
            idle.idle();
        }
    }

    /** Receives and checks {@code count} messages; returns the bytes received. */
    public static long receive(Path file, long count) {
        try (Arena arena = Arena.ofShared()) {
            OneToOneRingBuffer ring = map(file, arena);
            Checker checker = new Checker();
            Idle idle = new Idle();
            while (checker.next < count) {
                if (ring.read(checker, ChannelThroughput.BATCH) == 0) {
                    idle.idle();
                } else {
                    idle.reset();
                }
            }
            return checker.bytes;
        }
    }

    private static OneToOneRingBuffer map(Path file, Arena arena) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            return new OneToOneRingBuffer(new UnsafeBuffer(seg.address(), Math.toIntExact(seg.byteSize())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void fill(MutableDirectBuffer buffer, int index, int length, long seq) {
        int words = length & ~7;
        for (int i = 0; i < words; i += 8) {
            buffer.putLong(index + i, MessagePattern.word(seq, i));
        }
        long tail = MessagePattern.word(seq, words);
        for (int i = words; i < length; i++, tail >>>= 8) {
            buffer.putByte(index + i, (byte) tail);
        }
    }

    static boolean matches(DirectBuffer buffer, int index, int length, long seq) {
        int words = length & ~7;
        long diff = 0;
        for (int i = 0; i < words; i += 8) {
            diff |= buffer.getLong(index + i) ^ MessagePattern.word(seq, i);
        }
        long tail = MessagePattern.word(seq, words);
        for (int i = words; i < length; i++, tail >>>= 8) {
            diff |= buffer.getByte(index + i) ^ (byte) tail;
        }
        return diff == 0;
    }

    private static final class Checker implements MessageHandler {
        long next;
        long bytes;

        @Override
        public void onMessage(int msgTypeId, MutableDirectBuffer buffer, int index, int length) {
            if (msgTypeId != MSG_TYPE || !matches(buffer, index, length, next)) {
                throw MessagePattern.mismatch("Agrona OneToOneRingBuffer", next, length);
            }
            next++;
            bytes += length;
        }
    }
}
