package dev.memchan.tools.demo;

import dev.memchan.ClusterEvent;
import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MessageChannel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * Two processes, two nodes, two message channels: the initiator sends "ping N", the responder
 * answers "pong N", through plain stores into transmit mappings and loads from receive mappings.
 *
 * <pre>
 *   PingPongDemo responder shm:NAME          (start first; prints its node ID)
 *   PingPongDemo initiator shm:NAME ROUNDS   (finds the responder through membership)
 * </pre>
 * -Dmemchan.demo.failureTimeoutMs=MS: the cluster's failure timeout (default the library's).
 */
public final class PingPongDemo {
    private static final long TO_RESPONDER = 0xD0_0001L;
    private static final long TO_INITIATOR = 0xD0_0002L;
    private static final int CAPACITY = 64 * 1024;

    private PingPongDemo() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: PingPongDemo responder|initiator shm:NAME [ROUNDS]");
            System.exit(2);
        }
        FabricOptions options = FabricOptions.defaults();
        // a board's one-vCPU guests under load starve the cluster agent past the default failure
        // timeout (board-duo passes a longer one, as board-java does)
        String timeout = System.getProperty("memchan.demo.failureTimeoutMs");
        if (timeout != null) {
            options = new FabricOptions(options.nodeId(), options.create(), options.fabricSize(), options.pageSize(),
                    options.maxNodes(), options.group(), options.heartbeatPeriod(), Duration.ofMillis(Long.parseLong(timeout)));
        }
        try (Fabric fabric = Fabric.open(args[1], options)) {
            // a node judged dead leaves every region: say so, or a channel's wait for it looks like a hang
            fabric.onClusterEvent(e -> {
                if (e.type() == ClusterEvent.Type.LEAVE) {
                    System.out.println("node " + fabric.nodeId() + ": " + e);
                }
            });
            if (args[0].equals("responder")) {
                respond(fabric);
            } else {
                initiate(fabric, args.length > 2 ? Integer.parseInt(args[2]) : 10_000);
            }
        }
    }

    private static int otherMember(Fabric fabric) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            int others = fabric.members() & ~(1 << fabric.nodeId());
            if (others != 0) {
                return Integer.numberOfTrailingZeros(others);
            }
            ClusterEvent e = fabric.awaitClusterEvent(Duration.ofMillis(200));
            if (e != null) {
                System.out.println("node " + fabric.nodeId() + ": " + e);
            }
        }
        throw new IllegalStateException("no other node joined within 30 s");
    }

    private static void respond(Fabric fabric) throws InterruptedException {
        System.out.println("responder: node " + fabric.nodeId() + " of " + fabric.location() + ", waiting for an initiator");
        int peer = otherMember(fabric);
        try (MessageChannel.Receiver in = MessageChannel.receiver(fabric, TO_RESPONDER, peer, CAPACITY);
             MessageChannel.Sender out = MessageChannel.sender(fabric, TO_INITIATOR, peer, CAPACITY);
             Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(256);
            while (true) {
                int n = in.receive(buf, Duration.ofSeconds(30));
                if (n < 0) {
                    System.out.println("responder: no message for 30 s, leaving");
                    return;
                }
                String msg = new String(buf.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                if (msg.equals("bye")) {
                    System.out.println("responder: initiator said bye");
                    return;
                }
                byte[] reply = ("pong" + msg.substring(4)).getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(reply), 0, buf, 0, reply.length);
                out.send(buf, 0, reply.length, Duration.ofSeconds(10));
            }
        }
    }

    private static void initiate(Fabric fabric, int rounds) throws InterruptedException {
        int peer = otherMember(fabric);
        System.out.println("initiator: node " + fabric.nodeId() + ", responder is node " + peer);
        try (MessageChannel.Sender out = MessageChannel.sender(fabric, TO_RESPONDER, peer, CAPACITY);
             MessageChannel.Receiver in = MessageChannel.receiver(fabric, TO_INITIATOR, peer, CAPACITY);
             Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(256);
            long[] oneWay = new long[rounds];
            for (int i = 0; i < rounds; i++) {
                byte[] msg = ("ping " + i).getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(msg), 0, buf, 0, msg.length);
                long t0 = System.nanoTime();
                out.send(buf, 0, msg.length, Duration.ofSeconds(10));
                int n = in.receive(buf, Duration.ofSeconds(10));
                oneWay[i] = (System.nanoTime() - t0) / 2;
                String reply = n < 0 ? "<timeout>" : new String(buf.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                if (!reply.equals("pong " + i)) {
                    throw new IllegalStateException("round " + i + ": expected 'pong " + i + "', got '" + reply + "'");
                }
                if (i < 3 || i == rounds - 1) {
                    System.out.println("initiator: sent 'ping " + i + "', got '" + reply + "'");
                }
            }
            byte[] bye = "bye".getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(MemorySegment.ofArray(bye), 0, buf, 0, bye.length);
            out.send(buf, 0, bye.length, Duration.ofSeconds(10));
            Arrays.sort(oneWay);
            System.out.printf("initiator: %,d round trips of variable-length messages; one-way latency median %.2f us, "
                            + "p99 %.2f us (incl. timing overhead; see scripts/bench for the calibrated numbers)%n",
                    rounds, oneWay[rounds / 2] / 1e3, oneWay[(int) (rounds * 0.99)] / 1e3);
        }
    }
}
