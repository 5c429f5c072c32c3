package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.Region;
import dev.memchan.RemoteAccess;
import dev.memchan.RemoteMapping;

/**
 * Remote read and remote atomic latency from node {@code requester} to a one-page region homed
 * at node {@code home}: mean ns per blocking operation, after an uncounted warm-up of the same length
 * (the loops reach C2 first). Each result sits next to a same-run reference in the caller (the one-way
 * remote write of {@link PingPong}).
 */
public final class RemoteTiming {
    private RemoteTiming() {
    }

    /**
     * Mean ns of: remote read, fetch-and-add, compare-and-swap from {@code requester} to {@code home}, and the
     * reference, the one-way remote write from {@code requester} to {@code home} (8-byte ping-pong's half
     * round trip, the pong on a thread of this process), measured right after them.
     */
    public static double[] againstRemoteWrite(Fabric home, Fabric requester, long key, int iterations) {
        double[] remote = measure(home, requester, key, iterations);
        long pingKey = key + 1;
        Throwable[] failure = new Throwable[1];
        Thread pong = Thread.ofPlatform().name("remote-timing-pong").daemon().start(() -> {
            try {
                PingPong.pong(home, pingKey, pingKey + 1, requester.nodeId());
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        PingPong.Result write = PingPong.ping(requester, pingKey, pingKey + 1, home.nodeId(), Math.max(1, iterations / 4), 4, false, null);
        try {
            pong.join(120_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("pong failed: " + failure[0], failure[0]);
        }
        double w = 0;
        for (double b : write.batchOneWayNanos()) {
            w += b / write.batchOneWayNanos().length;
        }
        return new double[]{remote[0], remote[1], remote[2], w};
    }

    /** Mean ns of: remote read ({@code getLongAcquire}), fetch-and-add, compare-and-swap, in that order. */
    public static double[] measure(Fabric home, Fabric requester, long key, int iterations) {
        try (Region h = home.allocate(key, home.pageSize(), 0660);
             Region r = requester.allocate(key, requester.pageSize(), 0660)) {
            h.attachReceive(false, RemoteAccess.READ, RemoteAccess.ATOMIC);
            try (RemoteMapping m = r.attachRemote(home.nodeId())) {
                double[] ns = new double[3];
                for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
                    ns[0] = reads(m, iterations);
                    ns[1] = fetchAndAdds(m, iterations);
                    ns[2] = compareAndSwaps(m, iterations);
                }
                return ns;
            }
        }
    }

    private static double reads(RemoteMapping m, int iterations) {
        long sum = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            sum += m.getLongAcquire(0);
        }
        long t = System.nanoTime() - t0;
        if (sum == Long.MIN_VALUE) { // keeps the loads alive
            System.out.print("");
        }
        return t / (double) iterations;
    }

    private static double fetchAndAdds(RemoteMapping m, int iterations) {
        long t0 = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            m.getAndAddLong(0, 1);
        }
        return (System.nanoTime() - t0) / (double) iterations;
    }

    private static double compareAndSwaps(RemoteMapping m, int iterations) {
        long v = m.getLongAcquire(0);
        long t0 = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            v = m.compareAndExchangeLong(0, v, v + 1) + 1;
        }
        return (System.nanoTime() - t0) / (double) iterations;
    }
}
