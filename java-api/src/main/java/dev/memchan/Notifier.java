package dev.memchan;

import java.time.Duration;

/**
 * Wakes a blocked receiver: the signaller stores a new value into a notification word and raises
 * the adapter's interrupt on receive; the waiter polls the word first and then sleeps until the
 * interrupt (soft fabric: a futex on its adapter's NOTIFY_COUNT; board: the driver's poll()). A waiter learns only
 * that the word changed; {@link DataNotifier} delivers every notification, with a payload and its sender.
 *
 * <pre>
 *  page 0 of region KEY:  +0  u64 notification word: (signaller node << 48) | signaller's count
 * </pre>
 */
public final class Notifier implements AutoCloseable {
    private static final long SPIN_NANOS = 20_000;

    private final Fabric fabric;
    private final Region region;
    private final OutgoingMapping out;
    private final IncomingMapping in;
    private long signals;
    private long sleeps;

    private Notifier(Fabric fabric, Region region, OutgoingMapping out, IncomingMapping in) {
        this.fabric = fabric;
        this.region = region;
        this.out = out;
        this.in = in;
    }

    /** The signalling side: notifications go to {@code route}. */
    public static Notifier signaller(Fabric fabric, long key, Route route) {
        Region r = fabric.allocate(key, fabric.pageSize(), 0660);
        try {
            return fabric.track(new Notifier(fabric, r, r.attachTransmit(route, false), null));
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** The waiting side. */
    public static Notifier waiter(Fabric fabric, long key) {
        Region r = fabric.allocate(key, fabric.pageSize(), 0660);
        try {
            return fabric.track(new Notifier(fabric, r, null, r.attachReceive(true)));
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Publishes a new notification value and wakes the waiters. */
    public void signal() {
        if (out == null) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "this notifier is the waiting side");
        }
        // the notification word is all the signaller stores into its mapping
        out.putLongReleaseAfterPushes(0, ((long) fabric.nodeId() << 48) | (++signals & 0xFFFF_FFFF_FFFFL));
        out.notifyReceivers();
    }

    /** The current notification word. */
    public long current() {
        return in.getLongAcquire(0);
    }

    /**
     * Waits until the notification word differs from {@code lastSeen}: polls for a few microseconds,
     * then sleeps on the adapter's notification. Returns the new word, or {@code lastSeen} on timeout.
     */
    public long await(long lastSeen, Duration timeout) {
        if (in == null) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "this notifier is the signalling side");
        }
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long v;
        while ((v = in.getLongAcquire(0)) == lastSeen && System.nanoTime() - start < SPIN_NANOS) {
            Thread.onSpinWait();
        }
        while (v == lastSeen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return lastSeen;
            }
            int observed = fabric.context().backend().notifyCount();
            v = in.getLongAcquire(0); // re-check after reading the count: a signal in between changes the count
            if (v != lastSeen) {
                break;
            }
            sleeps++;
            fabric.context().backend().awaitNotify(observed, left);
            v = in.getLongAcquire(0);
        }
        return v;
    }

    /** How often {@link #await} went to sleep on the adapter's notification (after polling). */
    public long sleepCount() {
        return sleeps;
    }

    @Override
    public void close() {
        region.close();
        fabric.untrack(this);
    }
}
