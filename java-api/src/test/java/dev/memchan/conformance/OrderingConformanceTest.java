package dev.memchan.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
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
     * and B's stores: forbidden ({@link IriwCheck}). The check means something only for observations
     * made while both senders' stores were arriving, so the receivers are reading before the senders
     * start, and the senders go on until each receiver has made {@code enough} observations in which
     * both words moved (on two CPUs shared by four spinning processes the senders could otherwise
     * finish before a receiver was scheduled at all). The bounds are on progress: a receiver fails when
     * no new observation comes within its stall bound, however long the run: a machine under load makes
     * them slowly, a lost or stuck store stops them.
     */
    @Test
    void broadcastsFromSeveralSendersArriveInOneOrderEverywhere() throws Exception {
        TestBackend.assumeNodes(4, "two senders and two receivers");
        String fabric = TestBackend.newFabric("iriw");
        long key = TestBackend.key();
        int n = TestBackend.count(100_000, 2_000);
        int enough = TestBackend.count(1_000, 50);
        Path fx = Files.createTempFile("iriw-x", ".txt");
        Path fy = Files.createTempFile("iriw-y", ".txt");
        try (NodeProcess x = NodeProcess.start("x", "iriw-recv", fabric, "" + key, "0", "" + enough, fx.toString());
             NodeProcess y = NodeProcess.start("y", "iriw-recv", fabric, "" + key, "1", "" + enough, fy.toString());
             NodeProcess a = NodeProcess.start("a", "iriw-send", fabric, "" + key, "0", "" + n);
             NodeProcess b = NodeProcess.start("b", "iriw-send", fabric, "" + key, "1", "" + n)) {
            for (NodeProcess p : List.of(x, y, a, b)) {
                p.expect("READY", T);
            }
            x.send("GO"); // the readers first: the senders start once both are reading
            y.send("GO");
            x.expect("READING", T);
            y.expect("READING", T);
            a.send("GO");
            b.send("GO");
            String enoughX = x.expectProgressing("ENOUGH", "PROGRESS", T); // slow is fine; stalled is not
            String enoughY = y.expectProgressing("ENOUGH", "PROGRESS", T);
            a.send("STOP");
            b.send("STOP");
            long lastA = last(a.expect("DONE", T));
            long lastB = last(b.expect("DONE", T));
            x.send("STOP " + lastA + " " + lastB); // the readers read on until they have seen both last stores
            y.send("STOP " + lastA + " " + lastB);
            String okX = x.expect("OK", T);
            String okY = y.expect("OK", T);
            long[][] xs = read(fx); // (word0, word1) as read by X: word 0 first
            long[][] ys = read(fy); // (word1, word0) as read by Y: word 1 first
            long bothX = IriwCheck.bothMoved(xs);
            long bothY = IriwCheck.bothMoved(ys);
            String counts = "X: " + xs.length + " pairs, " + bothX + " with both words moved (" + enoughX + "; " + okX + "), Y: "
                    + ys.length + " pairs, " + bothY + " (" + enoughY + "; " + okY + "); stores A " + lastA + ", B " + lastB;
            System.out.println("iriw observations: " + counts);
            assertTrue(bothX >= enough && bothY >= enough,
                    "too few observations in which both words moved (need " + enough + " each): " + counts);
            String violation = IriwCheck.violation(xs, ys);
            assertNull(violation, "receivers disagree on the order of the two senders' stores: " + violation);
        } finally {
            Files.deleteIfExists(fx);
            Files.deleteIfExists(fy);
        }
    }

    private static long last(String done) {
        return Long.parseLong(done.substring(done.indexOf("last=") + 5).trim());
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
