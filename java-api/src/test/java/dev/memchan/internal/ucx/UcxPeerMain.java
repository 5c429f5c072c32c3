package dev.memchan.internal.ucx;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.StringJoiner;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The second process of {@link UcxTransportTest}: a UCX node with {@link #MEMORY} registered bytes, driven
 * by one command per stdin line, one answer per stdout line ({@code error ...} when a command threw). Its
 * UCX configuration comes from the environment the test gives it ({@code UCX_TLS}, {@code UCX_NET_DEVICES}).
 *
 * <pre>
 *   listen HOST                  -> listening PORT DESCRIPTOR   (DESCRIPTOR: hex of its memory's descriptor)
 *   connect HOST PORT DESCRIPTOR -> connected                   (the peer's memory opened on the endpoint)
 *   read OFFSET LENGTH           -> data HEX                    (its own memory)
 *   fill OFFSET LENGTH SEED      -> ok                          (its own memory, {@link #pattern})
 *   fadd OFFSET N                -> olds V,V,...                (N fetch-adds of 1 on the peer's word)
 *   lock ROUNDS cas|none ME      -> violations V                (the lock-word protocol of {@link #lock})
 *   ams ID COUNT                 -> sent                        (COUNT active messages, {@link #message})
 *   exit
 * </pre>
 */
public final class UcxPeerMain {
    static final int MEMORY = 4096;

    // The lock protocol's words in the peer's memory.
    static final long LOCK = 0;
    static final long INSIDE = 8;
    static final long STATE = 16;     // STATE + 8 * id, id 1 or 2
    static final long FAILS = 40;     // FAILS + 8 * id
    static final long OUT = 0;
    static final long WAITING = 1;
    static final long HOLDING = 2;
    static final long DONE = 3;

    private UcxPeerMain() {
    }

    /** The byte at {@code i} of the pattern {@code seed} (fill and the active messages' payloads). */
    static byte pattern(long seed, long i) {
        long x = (seed + 1) * 0x9E3779B97F4A7C15L + i * 0xBF58476D1CE4E5B9L;
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    /** The payload length of active message {@code seq}: 0 to 60000 bytes, some beyond one TCP segment. */
    static int messageLength(long seq) {
        return (int) ((seq * 7919) % 60001);
    }

    /** Active message {@code seq}'s payload, in {@code arena}. */
    static MemorySegment message(long seq, Arena arena) {
        MemorySegment payload = arena.allocate(Math.max(1, messageLength(seq))).asSlice(0, messageLength(seq));
        for (int i = 0; i < payload.byteSize(); i++) {
            payload.set(JAVA_BYTE, i, pattern(seq, i));
        }
        return payload;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (UcxContext context = UcxContext.open();
             UcxWorker worker = context.newWorker("peer", e -> System.err.println("event " + e))) {
            MemorySegment memory = Arena.global().allocate(MEMORY, 8);
            UcxMemory registered = context.register(memory);
            UcxEndpoint endpoint = null;
            UcxRemoteMemory remote = null;
            out.println("ready");
            String line;
            while ((line = in.readLine()) != null && !line.equals("exit")) {
                String[] a = line.split(" ");
                try {
                    switch (a[0]) {
                        case "listen" -> {
                            UcxListener l = worker.listen(new InetSocketAddress(a[1], 0));
                            out.println("listening " + l.address().getPort() + " " + HexFormat.of().formatHex(registered.descriptor()));
                        }
                        case "connect" -> {
                            endpoint = worker.connect(new InetSocketAddress(a[1], Integer.parseInt(a[2])));
                            remote = endpoint.remote(HexFormat.of().parseHex(a[3]));
                            out.println("connected");
                        }
                        case "read" -> out.println("data " + HexFormat.of().formatHex(
                                memory.asSlice(Long.parseLong(a[1]), Long.parseLong(a[2])).toArray(JAVA_BYTE)));
                        case "fill" -> {
                            long offset = Long.parseLong(a[1]);
                            long seed = Long.parseLong(a[3]);
                            for (long i = 0; i < Long.parseLong(a[2]); i++) {
                                memory.set(JAVA_BYTE, offset + i, pattern(seed, i));
                            }
                            out.println("ok");
                        }
                        case "fadd" -> {
                            StringJoiner olds = new StringJoiner(",");
                            for (int i = 0; i < Integer.parseInt(a[2]); i++) {
                                olds.add(Long.toString(endpoint.fetchAdd(remote, Long.parseLong(a[1]), 1)));
                            }
                            out.println("olds " + olds);
                        }
                        case "lock" -> out.println("violations " + lock(endpoint, remote, Integer.parseInt(a[1]),
                                a[2].equals("cas"), Integer.parseInt(a[3])));
                        case "ams" -> {
                            int id = Integer.parseInt(a[1]);
                            try (Arena arena = Arena.ofConfined()) {
                                MemorySegment header = arena.allocate(JAVA_LONG);
                                for (long seq = 0; seq < Long.parseLong(a[2]); seq++) {
                                    header.set(JAVA_LONG, 0, seq);
                                    endpoint.send(id, header, message(seq, arena));
                                }
                            }
                            out.println("sent");
                        }
                        default -> out.println("error unknown command " + line);
                    }
                } catch (RuntimeException e) {
                    out.println("error " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
                }
            }
        }
    }

    /**
     * {@code rounds} passes through a critical section guarded by a compare-and-swap lock word at the
     * peer ({@code cas}), or by nothing ({@code none}, the negative control); returns how many times
     * this process entered while the other was inside (the INSIDE counter was not 0 on entry).
     *
     * <p>The schedule does not depend on timing: inside, each process waits until the other has either
     * finished, or entered too (possible only without the lock), or been seen contending (its state
     * WAITING and its count of failed compare-and-swaps risen since entry). With the lock the other is
     * refused while this one is inside, so the count must be 0; without it the first round already
     * overlaps, so it is at least 1.
     */
    static long lock(UcxEndpoint ep, UcxRemoteMemory peer, int rounds, boolean cas, int me) {
        int other = 3 - me;
        long violations = 0;
        for (int r = 0; r < rounds; r++) {
            ep.swap(peer, STATE + 8 * me, WAITING);
            if (cas) {
                while (ep.compareAndSwap(peer, LOCK, 0, me) != 0) {
                    ep.fetchAdd(peer, FAILS + 8 * me, 1);
                }
            }
            if (ep.fetchAdd(peer, INSIDE, 1) != 0) {
                violations++;
            }
            ep.swap(peer, STATE + 8 * me, HOLDING); // after the increment: whoever sees HOLDING sees it counted
            long failsAtEntry = ep.getLong(peer, FAILS + 8 * other);
            while (true) {
                long state = ep.getLong(peer, STATE + 8 * other);
                if (state == DONE || state == HOLDING
                        || (state == WAITING && ep.getLong(peer, FAILS + 8 * other) > failsAtEntry)) {
                    break;
                }
            }
            ep.fetchAdd(peer, INSIDE, -1);
            ep.swap(peer, STATE + 8 * me, OUT);
            if (cas) {
                ep.swap(peer, LOCK, 0);
            }
        }
        ep.swap(peer, STATE + 8 * me, DONE);
        return violations;
    }
}
