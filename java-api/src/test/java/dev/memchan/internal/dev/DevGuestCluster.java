package dev.memchan.internal.dev;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.MessageChannel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Two kernels, one cluster: run by native/test.sh in two QEMU guests that share one ivshmem
 * soft-fabric file, each with its node ID set (0 and 1). Role a sends messages on a
 * {@link MessageChannel} through the library's cluster service (directory, locks, membership in the
 * system pages) and the dev: backend; role b checks and echoes them. Prints TAP.
 *
 * <p>The same program on the host, on the soft fabric file the guest's ivshmem device maps
 * ({@code shm:NAME}, node given explicitly), talks to a guest the same way.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.memchan.internal.dev.DevGuestCluster a|b dev:/dev/memchan0 [node]</pre>
 */
public final class DevGuestCluster {
    private static final long KEY_AB = 0x0D43_4755_4553_5401L;
    private static final long KEY_BA = 0x0D43_4755_4553_5402L;
    private static final int MESSAGES = 200;
    private static final int WORDS = 128;

    private DevGuestCluster() {
    }

    private static long pattern(long seq, long i) {
        long v = seq * 0x9E3779B97F4A7C15L ^ (i + 1) * 0xBF58476D1CE4E5B9L;
        return v ^ (v >>> 31);
    }

    /**
     * The sending end to {@code peer}, opened again while the library's wait for the peer's receiving
     * end (30 s an attempt) runs out, until {@code timeout}: the peer is a JVM in another kernel, which
     * on a busy machine joins and gets there tens of seconds after this one.
     */
    private static MessageChannel.Sender senderWithin(Fabric f, long key, int peer, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return MessageChannel.sender(f, key, peer, 16384);
            } catch (MemchanException e) {
                if (e.kind() != Kind.TIMEOUT || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                System.out.println("# " + e.getMessage() + "; opening it again");
            }
        }
    }

    public static void main(String[] args) {
        boolean a = args[0].equals("a");
        String location = args.length > 1 ? args[1] : "dev:/dev/memchan0";
        Duration timeout = Duration.ofSeconds(120);
        int failed = 0;
        long t0 = System.nanoTime();
        // a host process on the soft fabric names its node (the guest kernel holds the other)
        FabricOptions options = FabricOptions.defaults().withCreate(false);
        if (args.length > 2) {
            options = options.withNodeId(Integer.parseInt(args[2]));
        }
        try (Fabric f = Fabric.open(location, options);
             Arena arena = Arena.ofConfined()) {
            int peer = 1 - f.nodeId();
            System.out.println("# java cluster role " + args[0] + ": node " + f.nodeId() + ", peer " + peer
                    + ", joined in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            MemorySegment buf = arena.allocate(WORDS * 8L, 8);
            long start;
            int ok = 0;
            if (a) {
                try (MessageChannel.Sender out = senderWithin(f, KEY_AB, peer, timeout);
                     MessageChannel.Receiver in = MessageChannel.receiver(f, KEY_BA, peer, 16384)) {
                    start = System.nanoTime();
                    for (int seq = 1; seq <= MESSAGES; seq++) {
                        for (int i = 0; i < WORDS; i++) {
                            buf.setAtIndex(JAVA_LONG, i, pattern(seq, i));
                        }
                        out.send(buf, 0, WORDS * 8, timeout);
                        buf.fill((byte) 0);
                        int len = in.receive(buf, timeout);
                        boolean good = len == WORDS * 8;
                        for (int i = 0; good && i < WORDS; i++) {
                            good = buf.getAtIndex(JAVA_LONG, i) == ~pattern(seq, i);
                        }
                        ok += good ? 1 : 0;
                    }
                }
            } else {
                try (MessageChannel.Receiver in = MessageChannel.receiver(f, KEY_AB, peer, 16384);
                     MessageChannel.Sender out = senderWithin(f, KEY_BA, peer, timeout)) {
                    start = System.nanoTime();
                    for (int seq = 1; seq <= MESSAGES; seq++) {
                        int len = in.receive(buf, timeout);
                        boolean good = len == WORDS * 8;
                        for (int i = 0; good && i < WORDS; i++) {
                            good = buf.getAtIndex(JAVA_LONG, i) == pattern(seq, i);
                            buf.setAtIndex(JAVA_LONG, i, ~buf.getAtIndex(JAVA_LONG, i));
                        }
                        ok += good ? 1 : 0;
                        out.send(buf, 0, WORDS * 8, timeout);
                    }
                    Thread.sleep(500); // let a read the last echo before the regions go
                }
            }
            long us = (System.nanoTime() - start) / 1000;
            boolean pass = ok == MESSAGES;
            failed += pass ? 0 : 1;
            System.out.println((pass ? "ok" : "not ok") + " 1 - java cluster " + (a ? "a" : "b") + ": " + ok + "/"
                    + MESSAGES + " messages of " + WORDS * 8 + " bytes intact across two kernels ("
                    + us / MESSAGES + " us per round trip)");
        } catch (Throwable t) {
            failed++;
            System.out.println("# " + t);
            for (StackTraceElement e : t.getStackTrace()) {
                System.out.println("#   at " + e);
            }
            System.out.println("not ok 1 - java cluster " + args[0]);
        }
        System.out.println("1..1");
        System.exit(failed == 0 ? 0 : 1);
    }
}
