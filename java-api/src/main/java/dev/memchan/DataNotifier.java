package dev.memchan;

import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.spi.Backend;
import dev.memchan.spi.NotificationQueue;

import java.time.Duration;

/**
 * Notifications that carry data (SHRIMP's notifications, SISCI's data interrupts, RDMA's write with immediate):
 * each carries a payload of up to 48 bits ({@link #PAYLOAD_BITS}) and the sender's node ID, into a queue in the
 * receiving node's memory, so that none is lost while the receiver sleeps; a notification that finds the queue
 * full is counted there ({@link #overflowCount()}), never dropped unseen. Unlike {@link Notifier}, which tells a
 * waiter only that a word changed, every notification here is delivered once, in order per sender, after the
 * stores its sender made before it (rule 1).
 *
 * <p>A key names a region of one page per node: page {@code n} is node {@code n}'s queue
 * ({@code dev.memchan.layout.NotifyQueueDescriptor}, {@link #capacity()} entries). {@link #receiver} opens this
 * node's queue, {@link #sender} only sends; both {@link #signal}. An entry is a {@code long}: read its parts with
 * {@link #sender(long)} and {@link #payload(long)}. {@link #signal}, {@link #poll} and {@link #await} allocate
 * nothing, and may be called from any thread; several processes of one node may poll one queue, each entry
 * going to one of them.
 *
 * <p>Backends: the soft fabric, {@code ucx:} and the driver's {@code dev:} backend on ivshmem carry them; on a board
 * {@code dev:} refuses both factories with UNSUPPORTED: the adapter has no notification queue yet.
 */
public final class DataNotifier implements AutoCloseable {
    /** The payload's width. */
    public static final int PAYLOAD_BITS = Long.bitCount(NotifyQueueDescriptor.MAX_PAYLOAD);
    /** The largest payload. */
    public static final long MAX_PAYLOAD = NotifyQueueDescriptor.MAX_PAYLOAD;
    /** What {@link #poll} and {@link #await} return when there is no entry. */
    public static final long NONE = NotificationQueue.EMPTY;
    private static final long SPIN_NANOS = 20_000;

    private final Fabric fabric;
    private final Region region;
    private final Backend backend;
    /** This node's queue; null on the sending side. */
    private final NotificationQueue queue;
    /** The directory's receivers as last read: a node outside it is looked up again before it is refused. */
    private int knownReceivers;
    private long sleeps;

    private DataNotifier(Fabric fabric, Region region, NotificationQueue queue) {
        this.fabric = fabric;
        this.region = region;
        this.backend = fabric.context().backend();
        this.queue = queue;
    }

    /** The sending side of the notifications under {@code key}. UNSUPPORTED where the backend has no queues. */
    public static DataNotifier sender(Fabric fabric, long key) {
        fabric.context().backend().requireNotificationData();
        Region r = allocate(fabric, key);
        return fabric.track(new DataNotifier(fabric, r, null));
    }

    /**
     * This node's queue of the notifications under {@code key} (it receives its page, with the receive interrupt),
     * and the sending side too. UNSUPPORTED where the backend has no queues.
     */
    public static DataNotifier receiver(Fabric fabric, long key) {
        Backend backend = fabric.context().backend();
        backend.requireNotificationData();
        Region r = allocate(fabric, key);
        try {
            long page = (long) fabric.nodeId() * fabric.pageSize();
            r.attachReceive(true, page, fabric.pageSize());
            return fabric.track(new DataNotifier(fabric, r, backend.openNotificationQueue(r.firstPage() + fabric.nodeId())));
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    private static Region allocate(Fabric fabric, long key) {
        return fabric.allocate(key, (long) fabric.maxNodes() * fabric.pageSize(), 0660);
    }

    /**
     * Sends {@code payload} (0 .. {@link #MAX_PAYLOAD}) with this node's ID to node {@code node}'s queue, after this
     * process's earlier stores. Refused with INVALID_ARGUMENT, nothing sent, for a node out of range, a node that has
     * no queue under this key (not a {@link #receiver}), or a payload out of range (the backend's check).
     */
    public void signal(int node, long payload) {
        if (node < 0 || node >= fabric.maxNodes()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "node " + node + " out of range 0.."
                    + (fabric.maxNodes() - 1) + " on " + fabric.location());
        }
        if ((knownReceivers & 1 << node) == 0) {
            knownReceivers = region.receivers();
            if ((knownReceivers & 1 << node) == 0) {
                throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, String.format(
                        "node %d has no notification queue under key 0x%x: it is not a receiver of it", node, region.key()));
            }
        }
        backend.postNotification(node, region.firstPage() + node, payload);
    }

    /** Takes this node's oldest entry, or returns {@link #NONE}. */
    public long poll() {
        return receiving().poll();
    }

    /**
     * Takes this node's oldest entry, waiting for one up to {@code timeout}: polls for a few microseconds, then
     * sleeps on the adapter's receive interrupt. Returns {@link #NONE} on timeout.
     */
    public long await(Duration timeout) {
        NotificationQueue q = receiving();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long e;
        while ((e = q.poll()) == NONE && System.nanoTime() - start < SPIN_NANOS) {
            Thread.onSpinWait();
        }
        while (e == NONE) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return NONE;
            }
            int observed = backend.notifyCount();
            e = q.poll(); // after reading the count: a notification in between changes the count
            if (e != NONE) {
                break;
            }
            sleeps++;
            backend.awaitNotify(observed, left);
            e = q.poll();
        }
        return e;
    }

    /** Notifications this node's queue refused because it was full, since the key's region was allocated. */
    public long overflowCount() {
        return receiving().overflowCount();
    }

    /** Entries waiting in this node's queue (a snapshot). */
    public long pending() {
        return receiving().pending();
    }

    /** Entries a node's queue holds. */
    public int capacity() {
        return NotifyQueueDescriptor.capacity(fabric.pageSize());
    }

    /** How often {@link #await} went to sleep on the receive interrupt (after polling). */
    public long sleepCount() {
        return sleeps;
    }

    /** The sender's node ID of entry {@code entry}. */
    public static int sender(long entry) {
        return NotifyQueueDescriptor.sender(entry);
    }

    /** The payload of entry {@code entry}. */
    public static long payload(long entry) {
        return NotifyQueueDescriptor.payload(entry);
    }

    private NotificationQueue receiving() {
        if (queue == null) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "this notifier only sends: open a receiver to poll");
        }
        return queue;
    }

    @Override
    public void close() {
        if (queue != null) {
            queue.close();
        }
        region.close();
        fabric.untrack(this);
    }
}
