package dev.memchan.spi;

/**
 * This node's queue of notifications that carry data ({@code dev.memchan.layout.NotifyQueueDescriptor}), in a
 * page it receives: what the receiving side polls. Several processes of the node may poll one queue; each entry
 * is taken by exactly one of them. No method allocates.
 */
public interface NotificationQueue extends AutoCloseable {
    /** The value {@link #poll()} returns when the queue is empty. */
    long EMPTY = -1;

    /** Takes the oldest entry (an ENTRY word: payload and sender), or {@link #EMPTY}. */
    long poll();

    /** Notifications refused because the queue was full, since the page was zeroed. */
    long overflowCount();

    /** Entries waiting, a snapshot: claimed by producers and not yet taken. */
    long pending();

    /** Slots of the queue. */
    int capacity();

    /** Ends this process's use of the queue; the queue and its entries stay in the page. */
    @Override
    void close();
}
