package dev.memchan.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The cluster time ({@code Fabric.clusterTime()}) read by two node processes in turn: a reading that happens
 * after another, in real time, may not lie before it by more than the later reading's bound (the master's time
 * at the first read is at least its reading, at the second at most its reading plus its bound). On the soft
 * fabric the bound is 0 and the time never goes back. A backend without a global clock would say so with
 * UNSUPPORTED: the test is then skipped, naming why.
 */
class ClusterTimeConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(60));

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    private record Reading(long time, long bound, long offset, String unit) {
        static Reading parse(String line) {
            String[] w = line.split(" ");
            return new Reading(Long.parseLong(w[1]), Long.parseLong(w[2]), Long.parseLong(w[3]), w[4]);
        }
    }

    @Test
    void readingsInTurnOnTwoNodesAreOrderedWithinTheirBounds() throws Exception {
        String fabric = TestBackend.newFabric("clock");
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                nodes.add(NodeProcess.start("clock" + i, "clock-read", fabric));
            }
            for (NodeProcess p : nodes) {
                p.expect("READY", T);
            }
            Reading last = null;
            for (int round = 0; round < 40; round++) {
                NodeProcess p = nodes.get(round % 2);
                p.send("READ");
                String line = p.next(T);
                assumeFalse(line.startsWith("ERROR UNSUPPORTED"), "no global clock on " + fabric + ": " + line);
                assertTrue(line.startsWith("TIME "), "node answered " + line + "; " + p.logTail());
                Reading r = Reading.parse(line);
                assertTrue(r.bound() >= 0, "bound " + r.bound());
                if (TestBackend.freshFabrics()) { // one host's clock, the shadow's too
                    assertEquals("NANOSECONDS", r.unit());
                    assertEquals(0, r.bound(), "one host, one clock");
                    assertEquals(0, r.offset());
                }
                if (last != null) {
                    assertEquals(last.unit(), r.unit());
                    assertTrue(last.time() <= r.time() + r.bound(),
                            "reading " + r + " lies before the earlier " + last + " by more than its bound");
                }
                last = r;
            }
        } finally {
            for (NodeProcess p : nodes) {
                p.close();  // QUIT, tolerating a node that already exited (its failure is the one to see)
            }
        }
    }
}
