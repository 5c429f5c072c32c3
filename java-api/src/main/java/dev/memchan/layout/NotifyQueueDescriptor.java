package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;

/**
 * The notification queue of a receiving node (regmap/memchan.toml [notify_queue]): one network page in the
 * receiver's memory holding notifications that carry data, each a payload and its sender's node ID. The
 * offsets are the generated {@code Regs.NQ_*} constants; this class composes them.
 * <pre>
 *   0                                                               63
 *  +-----------------------------------------------------------------+
 *  |  TAIL      next position a producer claims (compare-and-set)    |  +0x00  producers' cache line
 *  |  OVERFLOW  notifications refused because the queue was full     |  +0x08
 *  +-----------------------------------------------------------------+
 *  |  HEAD      next position a consumer takes (compare-and-set)     |  +0x40  consumers' cache line
 *  +-----------------------------------------------------------------+
 *  |  slot 0:   SEQ    p - 0 free for position p, p + 1 - 0 holds p  |  +0x80
 *  |            ENTRY  below                                         |  +0x88
 *  |  slot 1:   SEQ, ENTRY                                           |  +0x90
 *  |  ...       capacity(pageSize) slots                             |
 *  +-----------------------------------------------------------------+
 *
 *  ENTRY:
 *   0                                           47 48    52 53      63
 *  +----------------------------------------------+--------+---------+
 *  |                  payload                     | sender |    0    |
 *  +----------------------------------------------+--------+---------+
 * </pre>
 * Slot {@code i} serves positions {@code i}, {@code i + capacity}, ...; its SEQ word is {@link #freeFor} a
 * position or {@link #holding} its entry, so that a zeroed page is an empty queue. A producer claims position
 * TAIL once its slot is free for it, writes ENTRY, then SEQ with release; a consumer takes position HEAD once its
 * slot holds it, reads ENTRY, then frees the slot for the position one lap later with release.
 */
public final class NotifyQueueDescriptor {
    /** The largest payload an entry carries. */
    public static final long MAX_PAYLOAD = NQ_ENTRY_PAYLOAD_MASK >>> NQ_ENTRY_PAYLOAD_SHIFT;

    private NotifyQueueDescriptor() {
    }

    /** Slots of a queue in a page of {@code pageSize} bytes. */
    public static int capacity(int pageSize) {
        return (pageSize - NQ_HEADER_SIZE) / NQ_SLOT_SIZE;
    }

    /** Offset of slot {@code index} from the queue's page. */
    public static long slot(int index) {
        return NQ_HEADER_SIZE + (long) NQ_SLOT_SIZE * index;
    }

    /** The ENTRY word of {@code payload} (0 .. {@link #MAX_PAYLOAD}) sent by node {@code sender}. */
    public static long entry(int sender, long payload) {
        return ((long) sender << NQ_ENTRY_SENDER_SHIFT & NQ_ENTRY_SENDER_MASK) | (payload << NQ_ENTRY_PAYLOAD_SHIFT & NQ_ENTRY_PAYLOAD_MASK);
    }

    /** The sender's node ID of an ENTRY word. */
    public static int sender(long entry) {
        return (int) ((entry & NQ_ENTRY_SENDER_MASK) >>> NQ_ENTRY_SENDER_SHIFT);
    }

    /** The payload of an ENTRY word. */
    public static long payload(long entry) {
        return (entry & NQ_ENTRY_PAYLOAD_MASK) >>> NQ_ENTRY_PAYLOAD_SHIFT;
    }

    /** SEQ of slot {@code index} when it is free for {@code position}. */
    public static long freeFor(long position, int index) {
        return position - index;
    }

    /** SEQ of slot {@code index} when it holds {@code position}'s entry. */
    public static long holding(long position, int index) {
        return position + 1 - index;
    }
}
