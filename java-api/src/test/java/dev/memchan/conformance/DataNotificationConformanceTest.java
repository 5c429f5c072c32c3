package dev.memchan.conformance;

import dev.memchan.DataNotifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Notifications that carry data ({@link DataNotifier}) across real processes: payload and sender arrive in order
 * per sender and after the sender's earlier stores, none is lost while the receiver does not poll, a full queue
 * counts exactly the notifications it refused, and bad input is refused with nothing changed. Skipped, by an
 * assumption that quotes the backend's refusal, where the backend has no notification queue (a board's adapter).
 */
class DataNotificationConformanceTest {
    private static final Duration T = TestBackend.allowance(Duration.ofSeconds(180));

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    /** A receiver process: its node and its queue's capacity, or the test skipped where the backend has no queue. */
    private record Receiver(NodeProcess process, int node, int capacity) {
        static Receiver start(String fabric, long key, long... dataKeys) throws IOException, InterruptedException {
            List<String> args = new ArrayList<>(List.of("dn-recv", fabric, "" + key));
            for (long k : dataKeys) {
                args.add("" + k);
            }
            NodeProcess p = NodeProcess.start("receiver", args.toArray(String[]::new));
            String ready = p.next(T);
            if (ready.startsWith("ERROR UNSUPPORTED")) {
                p.close();
            }
            assumeFalse(ready.startsWith("ERROR UNSUPPORTED"), "no notifications with data on " + fabric + ": " + ready);
            assertTrue(ready.startsWith("READY "), "receiver answered " + ready + p.logTail());
            return new Receiver(p, field(ready, "node"), field(ready, "capacity"));
        }

        String ask(String command, String answer) throws IOException, InterruptedException {
            process.send(command);
            return process.expect(answer, T);
        }
    }

    /** A sender process, number {@code index}, of node {@code node}. */
    private record Sender(NodeProcess process, int node) implements AutoCloseable {
        static Sender start(String fabric, long key, int index, long dataKey, int dest) throws IOException, InterruptedException {
            NodeProcess p = NodeProcess.start("sender" + index, "dn-send", fabric, "" + key, "" + index, "" + dataKey, "" + dest);
            return new Sender(p, field(p.expect("READY", T), "node"));
        }

        String ask(String command, String answer) throws IOException, InterruptedException {
            process.send(command);
            return process.expect(answer, T);
        }

        @Override
        public void close() {
            process.close();
        }
    }

    private static int field(String line, String name) {
        return Integer.parseInt(line.replaceAll(".*\\b" + name + "=(\\d+).*", "$1"));
    }

    private static String list(String took) {
        return took.substring(took.indexOf("list=") + "list=".length());
    }

    /** The entries "sender:payload" a sender of node {@code node}, number {@code index}, sends from its {@code first}th. */
    private static String expected(int node, int index, long first, int count) {
        StringBuilder b = new StringBuilder();
        for (long i = first; i < first + count; i++) {
            b.append(b.isEmpty() ? "" : ",").append(node).append(':').append((long) index << Integer.SIZE | i);
        }
        return b.toString();
    }

    @Test
    void payloadAndSenderArriveInOrderPerSenderAfterTheSendersStores() throws Exception {
        TestBackend.assumeNodes(3, "a receiver and two senders");
        String fabric = TestBackend.newFabric("dnorder");
        long key = TestBackend.key();
        long[] dataKeys = {TestBackend.key(), TestBackend.key()};
        Receiver r = Receiver.start(fabric, key, dataKeys);
        try (NodeProcess rp = r.process();
             Sender s0 = Sender.start(fabric, key, 0, dataKeys[0], r.node());
             Sender s1 = Sender.start(fabric, key, 1, dataKeys[1], r.node())) {
            int each = Math.min(r.capacity() / 2, TestBackend.count(120, 20));
            rp.send("TAKE " + 2 * each); // the receiver takes while both senders send at once
            s0.process().send("SEND " + each);
            s1.process().send("SEND " + each);
            s0.process().expect("SENT", T);
            s1.process().expect("SENT", T);
            String took = rp.expect("TOOK", T);
            assertTrue(took.startsWith("TOOK " + 2 * each + " stale=0 "), "every entry, none before its sender's store: " + took);
            List<String> from0 = new ArrayList<>();
            List<String> from1 = new ArrayList<>();
            for (String e : list(took).split(",")) {
                (Long.parseLong(e.substring(e.indexOf(':') + 1)) >>> Integer.SIZE == 0 ? from0 : from1).add(e);
            }
            assertEquals(expected(s0.node(), 0, 0, each), String.join(",", from0), "sender 0's entries, its node, in its order");
            assertEquals(expected(s1.node(), 1, 0, each), String.join(",", from1), "sender 1's entries, its node, in its order");
            assertEquals("STATE overflow=0 pending=0", r.ask("STATE", "STATE").replaceAll(" sleeps=.*", ""));
        }
    }

    @Test
    void noneIsLostWhileTheReceiverSleepsAndAFullQueueCountsExactlyWhatItRefused() throws Exception {
        String fabric = TestBackend.newFabric("dnfull");
        long key = TestBackend.key();
        long dataKey = TestBackend.key();
        Receiver r = Receiver.start(fabric, key, dataKey);
        try (NodeProcess rp = r.process(); Sender s = Sender.start(fabric, key, 0, dataKey, r.node())) {
            // asleep in await: the first notification wakes it (scaled: a loaded host may not have run it since)
            rp.send("TAKE 1");
            Thread.sleep(TestBackend.allowance(Duration.ofMillis(500)).toMillis());
            s.ask("SEND 1", "SENT");
            assertEquals("TOOK 1 stale=0 list=" + expected(s.node(), 0, 0, 1), rp.expect("TOOK", T));
            String state = r.ask("STATE", "STATE");
            assertTrue(field(state, "sleeps") >= 1, "the receiver never slept, so nothing was woken: " + state);
            // not polling: the queue keeps capacity entries and counts the 7 beyond
            int extra = 7;
            s.ask("SEND " + (r.capacity() + extra), "SENT");
            assertEquals("STATE overflow=" + extra + " pending=" + r.capacity(), r.ask("STATE", "STATE").replaceAll(" sleeps=.*", ""));
            assertEquals("TOOK " + r.capacity() + " stale=0 list=" + expected(s.node(), 0, 1, r.capacity()),
                    r.ask("TAKE " + r.capacity(), "TOOK"), "the first capacity entries, in order, the later ones refused");
            assertEquals("POLLED none", r.ask("POLL", "POLLED"));
            // drained, the queue takes notifications again; the count stays
            long next = 1L + r.capacity() + extra;
            s.ask("SEND 3", "SENT");
            assertEquals("TOOK 3 stale=0 list=" + expected(s.node(), 0, next, 3), r.ask("TAKE 3", "TOOK"));
            assertEquals("STATE overflow=" + extra + " pending=0", r.ask("STATE", "STATE").replaceAll(" sleeps=.*", ""));
        }
    }

    @Test
    void badInputIsRefusedAndChangesNothing() throws Exception {
        String fabric = TestBackend.newFabric("dnbad");
        long key = TestBackend.key();
        long dataKey = TestBackend.key();
        Receiver r = Receiver.start(fabric, key, dataKey);
        try (NodeProcess _ = r.process(); Sender s = Sender.start(fabric, key, 0, dataKey, r.node())) {
            String[] bad = {
                r.node() + " " + (DataNotifier.MAX_PAYLOAD + 1),   // payload too large
                r.node() + " -1",                                    // payload negative
                s.node() + " 5",                                     // a node with no queue under the key (a sender only)
                "-1 5",                                              // no such node
                "32 5",                                              // beyond every fabric's nodes
            };
            for (String b : bad) {
                String answer = s.ask("TRY " + b, "");
                assertTrue(answer.startsWith("REFUSED INVALID_ARGUMENT "), "TRY " + b + ": " + answer);
            }
            assertEquals("STATE overflow=0 pending=0", r.ask("STATE", "STATE").replaceAll(" sleeps=.*", ""), "nothing queued, nothing counted");
            assertEquals("POLLED none", r.ask("POLL", "POLLED"));
            assertEquals("OK", s.ask("TRY " + r.node() + " " + DataNotifier.MAX_PAYLOAD, ""), "the largest payload is taken");
            assertEquals("TOOK 1 stale=0 list=" + s.node() + ":" + DataNotifier.MAX_PAYLOAD, r.ask("TAKE 1", "TOOK"));
            assertEquals("STATE overflow=0 pending=0", r.ask("STATE", "STATE").replaceAll(" sleeps=.*", ""));
        }
    }
}
