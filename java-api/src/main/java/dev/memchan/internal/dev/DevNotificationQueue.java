package dev.memchan.internal.dev;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.spi.NotificationQueue;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * This node's notification queue in a page it receives, through the driver ({@code MEMCHAN_NOTIFY_QUEUE},
 * docs/driver.md): the receive page is mapped read-only, so the driver takes the entries (HEAD, SEQ) as a
 * consumer of the queue, one ioctl per {@link #poll}. The open file must hold a receive grant of the page. The
 * argument struct is per thread and reused: no allocation per call.
 */
final class DevNotificationQueue implements NotificationQueue {
    private static final ThreadLocal<MemorySegment> ARGS = DevBackend.threadArgs(Uapi.memchan_notify_queue.LAYOUT);

    private final int fd;
    private final String location;
    private final int node;
    private final int page;
    private final int capacity;
    private final Consumer<DevNotificationQueue> release;
    private volatile boolean closed;

    private DevNotificationQueue(int fd, String location, int node, int page, int capacity, Consumer<DevNotificationQueue> release) {
        this.fd = fd;
        this.location = location;
        this.node = node;
        this.page = page;
        this.capacity = capacity;
        this.release = release;
    }

    /** The queue in {@code page}; PERMISSION unless this file receives the page. */
    static DevNotificationQueue open(int fd, String location, int node, int page, int capacity,
                                     Consumer<DevNotificationQueue> release) {
        DevNotificationQueue q = new DevNotificationQueue(fd, location, node, page, capacity, release);
        q.call(0);
        return q;
    }

    /** MEMCHAN_NOTIFY_QUEUE with {@code flags}; the per-thread struct comes back filled. */
    private MemorySegment call(int flags) {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "this notification queue is closed");
        }
        MemorySegment s = ARGS.get();
        Uapi.memchan_notify_queue.flags(s, flags);
        Uapi.memchan_notify_queue.page(s, page);
        Uapi.memchan_notify_queue.entry(s, 0); // outputs: the driver wants them 0 on the way in
        Uapi.memchan_notify_queue.overflow(s, 0);
        Uapi.memchan_notify_queue.pending(s, 0);
        try {
            Posix.ioctl(fd, Uapi.NOTIFY_QUEUE, s);
        } catch (ErrnoException e) {
            throw failure(e);
        }
        return s;
    }

    private MemchanException failure(ErrnoException e) {
        return switch (e.errno()) {
            case Posix.EACCES -> new MemchanException(Kind.PERMISSION, location + ": node " + node + " does not receive page "
                    + page + " in this process: a notification queue is a page its node receives", e);
            case Posix.EOPNOTSUPP -> new MemchanException(Kind.UNSUPPORTED, location
                    + ": this driver backend has no notification queue (MEMCHAN_NOTIFY_QUEUE: EOPNOTSUPP)", e);
            case Posix.ENODEV -> new MemchanException(Kind.CLOSED, location + ": the device went away", e);
            case Posix.EAGAIN -> new MemchanException(Kind.DEVICE_ERROR, location + ": the queue in page " + page
                    + " did not let the driver take an entry (its HEAD kept moving, or the page holds no queue)", e);
            default -> new MemchanException(Kind.DEVICE_ERROR, location + ": notification queue of page " + page + ": "
                    + e.getMessage(), e);
        };
    }

    @Override
    public long poll() {
        long entry = Uapi.memchan_notify_queue.entry(call(Uapi.NQ_TAKE));
        return entry == Uapi.NQ_EMPTY ? EMPTY : entry;
    }

    @Override
    public long overflowCount() {
        return Uapi.memchan_notify_queue.overflow(call(0));
    }

    @Override
    public long pending() {
        return Uapi.memchan_notify_queue.pending(call(0));
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            release.accept(this);
        }
    }
}
