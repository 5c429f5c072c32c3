package dev.memchan.internal.soft;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.spi.NotificationQueue;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static dev.memchan.layout.Regs.NQ_HEAD;
import static dev.memchan.layout.Regs.NQ_OVERFLOW;
import static dev.memchan.layout.Regs.NQ_SLOT_ENTRY;
import static dev.memchan.layout.Regs.NQ_SLOT_SEQ;
import static dev.memchan.layout.Regs.NQ_TAIL;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A notification queue ({@link NotifyQueueDescriptor}) in a page of shared memory: {@link #offer} is the
 * producer's side (any process acting as the receiver's adapter), {@link #poll} the consumer's. Both are
 * lock-free and allocate nothing; the words are accessed with the ordering their names say.
 */
public final class SoftNotificationQueue implements NotificationQueue {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment memory;
    private final long base;
    private final int capacity;
    private volatile boolean closed;

    /** The queue at offset {@code base} of {@code memory}, in a page of {@code pageSize} bytes. */
    public SoftNotificationQueue(MemorySegment memory, long base, int pageSize) {
        this.memory = memory;
        this.base = base;
        this.capacity = NotifyQueueDescriptor.capacity(pageSize);
    }

    /**
     * Refuses (INVALID_ARGUMENT) a notification to node {@code dest} of {@code maxNodes}, in page {@code page} of
     * {@code pageCount}, with {@code payload}, when any of them is out of range: what a backend checks before it sends.
     */
    public static void checkNotification(int dest, int maxNodes, int page, int pageCount, long payload) {
        if (dest < 0 || dest >= maxNodes) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "node " + dest + " out of range 0.." + (maxNodes - 1));
        }
        if (page < 0 || page >= pageCount) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + page + " is outside the window 0.." + (pageCount - 1));
        }
        checkPayload(payload);
    }

    /** Refuses (INVALID_ARGUMENT) a payload outside 0 .. {@link NotifyQueueDescriptor#MAX_PAYLOAD}. */
    public static void checkPayload(long payload) {
        if (payload < 0 || payload > NotifyQueueDescriptor.MAX_PAYLOAD) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "payload " + Long.toUnsignedString(payload)
                    + " does not fit a notification's " + Long.bitCount(NotifyQueueDescriptor.MAX_PAYLOAD) + " bits");
        }
    }

    /**
     * Enqueues {@code entry} into the queue at {@code base} of {@code memory} ({@code capacity} slots). Returns
     * false, having added 1 to OVERFLOW, when the slot of the next position still holds the entry of the position
     * one lap before: the queue is full.
     */
    public static boolean offer(MemorySegment memory, long base, int capacity, long entry) {
        while (true) {
            long tail = (long) LONG.getVolatile(memory, base + NQ_TAIL);
            int index = (int) (tail % capacity);
            long slot = base + NotifyQueueDescriptor.slot(index);
            long seq = (long) LONG.getAcquire(memory, slot + NQ_SLOT_SEQ);
            long free = NotifyQueueDescriptor.freeFor(tail, index);
            if (seq == free) {
                if (LONG.compareAndSet(memory, base + NQ_TAIL, tail, tail + 1)) {
                    LONG.set(memory, slot + NQ_SLOT_ENTRY, entry);
                    LONG.setRelease(memory, slot + NQ_SLOT_SEQ, NotifyQueueDescriptor.holding(tail, index));
                    return true;
                }
            } else if (seq < free) {
                // Only a slot not yet freed by the consumer is behind: SEQ grows, and a producer claimed tail only
                // after SEQ reached free, so TAIL is still tail and the queue is full at this read.
                LONG.getAndAdd(memory, base + NQ_OVERFLOW, 1L);
                return false;
            }
            // another producer claimed tail: read TAIL again
        }
    }

    @Override
    public long poll() {
        ensureOpen();
        while (true) {
            long head = (long) LONG.getVolatile(memory, base + NQ_HEAD);
            int index = (int) (head % capacity);
            long slot = base + NotifyQueueDescriptor.slot(index);
            long seq = (long) LONG.getAcquire(memory, slot + NQ_SLOT_SEQ);
            long holding = NotifyQueueDescriptor.holding(head, index);
            if (seq == holding) {
                if (LONG.compareAndSet(memory, base + NQ_HEAD, head, head + 1)) {
                    long entry = (long) LONG.get(memory, slot + NQ_SLOT_ENTRY);
                    LONG.setRelease(memory, slot + NQ_SLOT_SEQ, NotifyQueueDescriptor.freeFor(head + capacity, index));
                    return entry;
                }
            } else if (seq < holding) {
                return EMPTY; // free for head: not claimed yet, or claimed and not yet written
            }
            // another process of the node took head: read HEAD again
        }
    }

    @Override
    public long overflowCount() {
        return (long) LONG.getVolatile(memory, base + NQ_OVERFLOW);
    }

    @Override
    public long pending() {
        long head = (long) LONG.getVolatile(memory, base + NQ_HEAD);
        return (long) LONG.getVolatile(memory, base + NQ_TAIL) - head;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "this notification queue is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
