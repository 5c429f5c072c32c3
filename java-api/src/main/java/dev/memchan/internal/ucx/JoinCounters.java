package dev.memchan.internal.ucx;

import dev.memchan.internal.ucx.JoinRefusal.Reason;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A hub's join counts ({@link JoinGate#counters()}): handshakes started, nodes admitted, refusals by
 * reason. Thread-safe: the gate counts on the worker's progress thread, anyone reads.
 */
public final class JoinCounters {
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLongArray refused = new AtomicLongArray(Reason.values().length);

    void countStarted() {
        started.incrementAndGet();
    }

    void countAdmitted() {
        admitted.incrementAndGet();
    }

    void countRefused(Reason reason) {
        refused.incrementAndGet(reason.ordinal());
    }

    /** Handshakes begun: connections the front door accepted. */
    public long started() {
        return started.get();
    }

    /**
     * Nodes that authenticated and that the admission accepted, counted before their WELCOME is sent (one
     * whose WELCOME cannot be sent is counted refused as well, {@code DISCONNECTED}).
     */
    public long admitted() {
        return admitted.get();
    }

    /** Refusals for {@code reason}, by the hub or by the node (a REFUSED the node sent). */
    public long refused(Reason reason) {
        return refused.get(reason.ordinal());
    }

    /** Refusals for every reason. */
    public long refusedTotal() {
        long sum = 0;
        for (int i = 0; i < refused.length(); i++) {
            sum += refused.get(i);
        }
        return sum;
    }

    /** The refusal counts that are not zero, by reason. */
    public Map<Reason, Long> refusals() {
        Map<Reason, Long> m = new EnumMap<>(Reason.class);
        for (Reason r : Reason.values()) {
            long n = refused(r);
            if (n != 0) {
                m.put(r, n);
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return "JoinCounters[started=" + started() + ", admitted=" + admitted() + ", refused=" + refusals() + "]";
    }
}
