package dev.memchan.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Memory Channel ordering rules 1 and 2 (seed 000), across real processes. */
class OrderingConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(120));

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    @Test
    void singleSenderOrderIsKeptAtEveryReceiver() throws Exception {
        String fabric = TestBackend.newFabric("order");
        long key = TestBackend.key();
        int n = TestBackend.count(200_000, 2_000);
        int receivers = Math.min(2, TestBackend.nodes() - 1); // one sender, the other nodes receive
        List<NodeProcess> recv = new ArrayList<>();
        try {
            for (int i = 0; i < receivers; i++) {
                recv.add(NodeProcess.start("recv" + (i + 1), "order-recv", fabric, "" + key, "" + n));
            }
            for (NodeProcess r : recv) {
                r.expect("READY", T);
            }
            try (NodeProcess s = NodeProcess.start("send", "order-send", fabric, "" + key, "" + n)) {
                s.expect("READY", T);
                for (NodeProcess r : recv) {
                    r.send("GO"); // the readers first, so they are reading when the stores begin
                }
                s.send("GO");
                s.expect("DONE", T);
                // Each receiver checked, at every flag value it saw, that all earlier data stores were visible.
                for (NodeProcess r : recv) {
                    String ok = r.expect("OK", T);
                    assertTrue(observations(ok) > 0, ok);
                }
            }
        } finally {
            for (NodeProcess r : recv) {
                r.close();
            }
        }
    }

    private static long observations(String line) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1));
    }

    /**
     * Multi-sender rule in the IRIW shape: senders A and B store increasing values into words 0 and 1;
     * receiver X reads word 0 then word 1, receiver Y word 1 then word 0. If X saw A's store k before
     * B's store j and Y saw B's j' (j' >= j) before A's k' (k' <= k), they disagree on the order of A's
     * and B's stores: forbidden.
     */
    @Test
    void broadcastsFromSeveralSendersArriveInOneOrderEverywhere() throws Exception {
        TestBackend.assumeNodes(4, "two senders and two receivers");
        String fabric = TestBackend.newFabric("iriw");
        long key = TestBackend.key();
        int n = TestBackend.count(100_000, 2_000);
        Path fx = Files.createTempFile("iriw-x", ".txt");
        Path fy = Files.createTempFile("iriw-y", ".txt");
        try (NodeProcess x = NodeProcess.start("x", "iriw-recv", fabric, "" + key, "0", "" + n, fx.toString());
             NodeProcess y = NodeProcess.start("y", "iriw-recv", fabric, "" + key, "1", "" + n, fy.toString());
             NodeProcess a = NodeProcess.start("a", "iriw-send", fabric, "" + key, "0", "" + n);
             NodeProcess b = NodeProcess.start("b", "iriw-send", fabric, "" + key, "1", "" + n)) {
            for (NodeProcess p : List.of(x, y, a, b)) {
                p.expect("READY", T);
            }
            x.send("GO"); // the readers first, so they are reading when the stores begin
            y.send("GO");
            a.send("GO");
            b.send("GO");
            a.expect("DONE", T);
            b.expect("DONE", T);
            x.expect("OK", T);
            y.expect("OK", T);
            long[][] xs = read(fx); // (word0, word1) as read by X: word 0 first
            long[][] ys = read(fy); // (word1, word0) as read by Y: word 1 first
            assertTrue(xs.length > 10 && ys.length > 10, "too few observations: " + xs.length + ", " + ys.length);
            // X's (k, j): A's store k came before B's store j+1. Y's (j', k'): B's j' came before A's k'+1.
            // Violation: j' >= j+1 and k'+1 <= k. For each j', the smallest k' seen with that or a larger j'.
            Arrays.sort(ys, (p, q) -> Long.compare(p[0], q[0]));
            long[] suffixMinK = new long[ys.length + 1];
            suffixMinK[ys.length] = Long.MAX_VALUE;
            for (int i = ys.length - 1; i >= 0; i--) {
                suffixMinK[i] = Math.min(suffixMinK[i + 1], ys[i][1]);
            }
            long violations = 0;
            String example = "";
            for (long[] o : xs) {
                long k = o[0];
                long j = o[1];
                int lo = lowerBound(ys, j + 1);
                if (lo < ys.length && suffixMinK[lo] + 1 <= k) {
                    violations++;
                    example = "X saw (A=" + k + ", B=" + j + "), Y saw B >= " + (j + 1) + " with A = " + suffixMinK[lo];
                }
            }
            assertEquals(0, violations, "receivers disagree on the order of the two senders' stores: " + example);
        } finally {
            Files.deleteIfExists(fx);
            Files.deleteIfExists(fy);
        }
    }

    private static int lowerBound(long[][] sorted, long key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid][0] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static long[][] read(Path p) throws Exception {
        List<String> lines = Files.readAllLines(p);
        long[][] out = new long[lines.size()][];
        for (int i = 0; i < out.length; i++) {
            String[] f = lines.get(i).split(" ");
            out[i] = new long[]{Long.parseLong(f[0]), Long.parseLong(f[1])};
        }
        return out;
    }
}
