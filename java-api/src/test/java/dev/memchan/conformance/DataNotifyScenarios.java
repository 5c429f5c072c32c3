package dev.memchan.conformance;

import dev.memchan.DataNotifier;
import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.MemchanException;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;

import java.io.IOException;
import java.time.Duration;

import static dev.memchan.conformance.NodeMain.say;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link NodeMain}'s scenarios for notifications that carry data ({@link DataNotificationConformanceTest}). A sender
 * number {@code k} sends payloads {@code k << 32 | i} and stores {@code i + 1} into word 0 of its data region before
 * notification {@code i}; a receiver that takes the entry reads that word (rule 1: never older than the entry).
 */
final class DataNotifyScenarios {
    private static final int INDEX_SHIFT = Integer.SIZE;

    private DataNotifyScenarios() {
    }

    /** Runs scenario {@code a[0]} when it is one of these; false when it is not. */
    static boolean run(Fabric f, String[] a) throws Exception {
        switch (a[0]) {
            case "dn-recv" -> receive(f, a);
            case "dn-send" -> send(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), Long.parseLong(a[4]), Integer.parseInt(a[5]));
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * dn-recv LOCATION KEY DATAKEY...: this node's queue, and the data regions of senders 0, 1, ... received. "READY
     * node=N capacity=C", then per line: "TAKE n" (await n entries: "TOOK n stale=S list=sender:payload,..."),
     * "POLL" ("POLLED sender:payload" or "POLLED none"), "STATE" ("STATE overflow=O pending=P sleeps=S").
     */
    private static void receive(Fabric f, String[] a) throws IOException {
        DataNotifier n = DataNotifier.receiver(f, Long.parseLong(a[2]));
        IncomingMapping[] data = new IncomingMapping[a.length - 3];
        for (int k = 0; k < data.length; k++) {
            Region r = f.allocate(Long.parseLong(a[3 + k]), f.pageSize(), 0660);
            data[k] = r.attachReceive(false);
        }
        say("READY node=" + f.nodeId() + " capacity=" + n.capacity());
        Duration window = TestBackend.allowance(Duration.ofSeconds(30));
        String line;
        while ((line = NodeMain.nextLine()) != null && !line.equals("QUIT")) {
            String[] c = line.split(" ");
            switch (c[0]) {
                case "TAKE" -> {
                    int want = Integer.parseInt(c[1]);
                    StringBuilder list = new StringBuilder();
                    int stale = 0;
                    int took = 0;
                    for (; took < want; took++) {
                        long e = n.await(window);
                        if (e == DataNotifier.NONE) {
                            break;
                        }
                        long p = DataNotifier.payload(e);
                        int k = (int) (p >>> INDEX_SHIFT);
                        if (k < data.length && data[k].segment().get(JAVA_LONG, 0) < (p & 0xFFFF_FFFFL) + 1) {
                            stale++;
                        }
                        list.append(took == 0 ? "" : ",").append(DataNotifier.sender(e)).append(':').append(p);
                    }
                    say("TOOK " + took + " stale=" + stale + " list=" + list);
                }
                case "POLL" -> {
                    long e = n.poll();
                    say("POLLED " + (e == DataNotifier.NONE ? "none" : DataNotifier.sender(e) + ":" + DataNotifier.payload(e)));
                }
                case "STATE" -> say("STATE overflow=" + n.overflowCount() + " pending=" + n.pending() + " sleeps=" + n.sleepCount());
                default -> NodeMain.fail("unknown command " + line);
            }
        }
    }

    /**
     * dn-send LOCATION KEY INDEX DATAKEY DEST: sender number INDEX, its data region routed to DEST. "READY node=N",
     * then per line: "SEND count" (the next count notifications to DEST, then the acknowledge barrier: "SENT total"),
     * "TRY node payload" (one
     * notification: "OK" or "REFUSED kind").
     */
    private static void send(Fabric f, long key, int index, long dataKey, int dest) throws IOException {
        DataNotifier n = DataNotifier.sender(f, key);
        Region r = f.allocate(dataKey, f.pageSize(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.node(dest), false);
        say("READY node=" + f.nodeId());
        long sent = 0;
        String line;
        while ((line = NodeMain.nextLine()) != null && !line.equals("QUIT")) {
            String[] c = line.split(" ");
            switch (c[0]) {
                case "SEND" -> {
                    for (int i = Integer.parseInt(c[1]); i > 0; i--, sent++) {
                        out.segment().set(JAVA_LONG, 0, sent + 1); // a plain store: the notification publishes it
                        n.signal(dest, (long) index << INDEX_SHIFT | sent);
                    }
                    f.ackBarrier(); // every one has reached the receiver's queue (on a network, or refused there) before SENT
                    say("SENT " + sent);
                }
                case "TRY" -> {
                    try {
                        n.signal(Integer.parseInt(c[1]), Long.parseLong(c[2]));
                        say("OK");
                    } catch (MemchanException e) {
                        say("REFUSED " + e.kind() + " " + e.getMessage());
                    }
                }
                default -> NodeMain.fail("unknown command " + line);
            }
        }
    }
}
