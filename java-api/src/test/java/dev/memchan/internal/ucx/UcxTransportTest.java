package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The UCX transport between this JVM and {@link UcxPeerMain} processes, over TCP on loopback
 * ({@code TLS=tcp}, {@code NET_DEVICES=lo} here through the context's settings, in the peers through their
 * environment). Nothing waits for a time to pass: every wait is for an answer or an event, bounded only
 * by a generous deadline.
 */
class UcxTransportTest {
    private static final Map<String, String> LOOPBACK_TCP = Map.of("TLS", "tcp", "NET_DEVICES", "lo");
    private static final String HOST = "127.0.0.1";
    private static final int AM_ID = 7;

    private static UcxContext context;
    private static UcxWorker worker;
    private static final BlockingQueue<UcxEvent> EVENTS = new LinkedBlockingQueue<>();

    @BeforeAll
    static void open() {
        assertEquals(List.of("UCX_TLS", "UCX_NET_DEVICES"), UcxPeer.ENVIRONMENT.stream().map(kv -> kv[0]).toList());
        context = UcxContext.open(LOOPBACK_TCP);
        worker = context.newWorker("test", EVENTS::add);
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
    }

    /** The next event matching {@code which}, others set aside; fails after the (generous) deadline. */
    private static <E extends UcxEvent> E awaitEvent(Class<E> type, Predicate<E> which) throws InterruptedException {
        long deadline = System.nanoTime() + UcxPeer.ANSWER.toNanos();
        List<UcxEvent> others = new ArrayList<>();
        try {
            while (true) {
                UcxEvent e = EVENTS.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (e == null) {
                    throw new AssertionError("no " + type.getSimpleName() + " within " + UcxPeer.ANSWER + "; other events: " + others);
                }
                if (type.isInstance(e) && which.test(type.cast(e))) {
                    return type.cast(e);
                }
                others.add(e);
            }
        } finally {
            EVENTS.addAll(others);
        }
    }

    /** A peer listening on loopback; returns its port and memory descriptor. */
    private static Object[] listenOn(UcxPeer peer) throws IOException, InterruptedException {
        String[] a = peer.request("listen " + HOST, "listening").split(" ");
        return new Object[]{Integer.parseInt(a[0]), HexFormat.of().parseHex(a[1])};
    }

    private static byte[] read(UcxPeer peer, long offset, long length) throws IOException, InterruptedException {
        return HexFormat.of().parseHex(peer.request("read " + offset + " " + length, "data"));
    }

    @Test
    void putThenFlushIsVisibleAtTheTarget() throws Exception {
        try (UcxPeer peer = UcxPeer.start("put"); Arena arena = Arena.ofConfined()) {
            Object[] l = listenOn(peer);
            UcxEndpoint ep = worker.connect(new InetSocketAddress(HOST, (int) l[0]));
            try (UcxRemoteMemory remote = ep.remote((byte[]) l[1])) {
                assertEquals(UcxPeerMain.MEMORY, remote.length());
                MemorySegment block = arena.allocate(256);
                for (int i = 0; i < 256; i++) {
                    block.set(JAVA_BYTE, i, UcxPeerMain.pattern(42, i));
                }
                ep.put(block, remote, 1024);
                ep.putLong(remote, 8, 0x0123_4567_89AB_CDEFL);
                ep.flush();
                byte[] seen = read(peer, 0, UcxPeerMain.MEMORY);
                byte[] expected = new byte[UcxPeerMain.MEMORY];
                MemorySegment.copy(block, JAVA_BYTE, 0, expected, 1024, 256);
                MemorySegment.ofArray(expected).set(JAVA_LONG_UNALIGNED, 8, 0x0123_4567_89AB_CDEFL); // both sides little-endian
                assertArrayEquals(expected, seen, "the peer's memory after put + flush: the two writes and nothing else");
            } finally {
                ep.close();
            }
        }
    }

    @Test
    void getReadsTheTargetsMemory() throws Exception {
        try (UcxPeer peer = UcxPeer.start("get"); Arena arena = Arena.ofConfined()) {
            Object[] l = listenOn(peer);
            peer.request("fill 0 " + UcxPeerMain.MEMORY + " 9", "ok");
            UcxEndpoint ep = worker.connect(new InetSocketAddress(HOST, (int) l[0]));
            try (UcxRemoteMemory remote = ep.remote((byte[]) l[1])) {
                MemorySegment all = arena.allocate(UcxPeerMain.MEMORY);
                ep.get(remote, 0, all);
                for (int i = 0; i < UcxPeerMain.MEMORY; i++) {
                    assertEquals(UcxPeerMain.pattern(9, i), all.get(JAVA_BYTE, i), "byte " + i);
                }
                assertEquals(MemorySegment.ofArray(read(peer, 16, 8)).get(JAVA_LONG_UNALIGNED, 0), ep.getLong(remote, 16));
            } finally {
                ep.close();
            }
        }
    }

    @Test
    void fetchAddsOfTwoProcessesGiveExactlyTheTotal() throws Exception {
        int n = 500;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(64, 8);
            try (UcxMemory memory = context.register(word); UcxListener listener = worker.listen(new InetSocketAddress(HOST, 0));
                 UcxPeer a = UcxPeer.start("fadd-a"); UcxPeer b = UcxPeer.start("fadd-b")) {
                String connect = "connect " + HOST + " " + listener.address().getPort() + " " + HexFormat.of().formatHex(memory.descriptor());
                a.request(connect, "connected");
                b.request(connect, "connected");
                a.send("fadd 16 " + n);
                b.send("fadd 16 " + n);
                long[] olds = parseLongs(a.answer("olds"), parseLongs(b.answer("olds")));
                assertEquals(2L * n, word.get(JAVA_LONG, 16), "the word after " + n + " fetch-adds of 1 by each of two processes");
                Arrays.sort(olds);
                for (int i = 0; i < olds.length; i++) {
                    assertEquals(i, olds[i], "the previous values returned: each of 0.." + (2 * n - 1) + " exactly once");
                }
                assertEquals(0, word.get(JAVA_LONG, 8), "the neighbouring word");
                assertEquals(0, word.get(JAVA_LONG, 24), "the neighbouring word");
            }
        }
    }

    private static long[] parseLongs(String csv, long... more) {
        long[] first = Arrays.stream(csv.split(",")).mapToLong(Long::parseLong).toArray();
        long[] all = Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    /** Two processes run {@link UcxPeerMain#lock}; returns their violations, after checking the words are released. */
    private static long lockRun(boolean cas) throws Exception {
        int rounds = 20;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment words = arena.allocate(UcxPeerMain.MEMORY, 8);
            try (UcxMemory memory = context.register(words); UcxListener listener = worker.listen(new InetSocketAddress(HOST, 0));
                 UcxPeer a = UcxPeer.start("lock-1"); UcxPeer b = UcxPeer.start("lock-2")) {
                String connect = "connect " + HOST + " " + listener.address().getPort() + " " + HexFormat.of().formatHex(memory.descriptor());
                a.request(connect, "connected");
                b.request(connect, "connected");
                String mode = cas ? "cas" : "none";
                a.send("lock " + rounds + " " + mode + " 1");
                b.send("lock " + rounds + " " + mode + " 2");
                long violations = Long.parseLong(a.answer("violations")) + Long.parseLong(b.answer("violations"));
                assertEquals(0, words.get(JAVA_LONG, UcxPeerMain.LOCK), "the lock word after both finished");
                assertEquals(0, words.get(JAVA_LONG, UcxPeerMain.INSIDE), "processes inside after both finished");
                assertEquals(UcxPeerMain.DONE, words.get(JAVA_LONG, UcxPeerMain.STATE + 8));
                assertEquals(UcxPeerMain.DONE, words.get(JAVA_LONG, UcxPeerMain.STATE + 16));
                return violations;
            }
        }
    }

    @Test
    void compareAndSwapLockWordGivesMutualExclusion() throws Exception {
        assertEquals(0, lockRun(true), "entries while the other process was inside, with the compare-and-swap lock");
    }

    @Test
    void withoutTheCompareAndSwapTheSameScheduleOverlaps() throws Exception {
        long violations = lockRun(false);
        assertTrue(violations > 0, "the negative control: the same schedule without the lock must overlap, got " + violations);
    }

    @Test
    void activeMessagesArriveCompleteWithTheirSequenceNumbers() throws Exception {
        int count = 300;
        BitSet seen = new BitSet();
        List<String> problems = new ArrayList<>();
        Object done = new Object();
        worker.setHandler(AM_ID, (from, header, payload) -> {
            synchronized (done) {
                try {
                    // UCX's receive buffer: no alignment promised
                    long seq = header.byteSize() == 8 ? header.get(JAVA_LONG_UNALIGNED, 0) : -1;
                    if (seq < 0 || seq >= count) {
                        problems.add("a header of " + header.byteSize() + " bytes, sequence " + seq);
                    } else if (seen.get((int) seq)) {
                        problems.add("sequence " + seq + " twice");
                    } else if (payload.byteSize() != UcxPeerMain.messageLength(seq)) {
                        problems.add("sequence " + seq + ": " + payload.byteSize() + " bytes, not " + UcxPeerMain.messageLength(seq));
                    } else {
                        for (int i = 0; i < payload.byteSize(); i++) {
                            if (payload.get(JAVA_BYTE, i) != UcxPeerMain.pattern(seq, i)) {
                                problems.add("sequence " + seq + ": byte " + i + " differs");
                                break;
                            }
                        }
                        seen.set((int) seq);
                    }
                    if (seq == 0) {
                        // inside UCX's progress: a blocking operation must be refused, not re-enter it
                        MemchanException refused = assertThrows(MemchanException.class, worker::flush);
                        assertEquals(MemchanException.Kind.INVALID_ARGUMENT, refused.kind());
                    }
                } catch (RuntimeException | AssertionError e) {
                    problems.add("the handler threw " + e);
                }
                done.notifyAll();
            }
        });
        try (UcxListener listener = worker.listen(new InetSocketAddress(HOST, 0)); UcxPeer peer = UcxPeer.start("ams");
             Arena arena = Arena.ofConfined(); UcxMemory memory = context.register(arena.allocate(64))) {
            peer.request("connect " + HOST + " " + listener.address().getPort() + " " + HexFormat.of().formatHex(memory.descriptor()), "connected");
            peer.request("ams " + AM_ID + " " + count, "sent");
            long deadline = System.nanoTime() + UcxPeer.ANSWER.toNanos();
            synchronized (done) {
                while (seen.cardinality() + problems.size() < count && System.nanoTime() < deadline) {
                    done.wait(1000);
                }
                assertEquals(List.of(), problems);
                assertEquals(count, seen.cardinality(), "messages received, each complete, by sequence number: " + seen);
            }
        } finally {
            worker.removeHandler(AM_ID);
        }
    }

    @Test
    void aKilledPeerIsReportedAsAnEvent() throws Exception {
        UcxEndpoint ep;
        UcxRemoteMemory remote;
        try (UcxPeer peer = UcxPeer.start("killed")) {
            Object[] l = listenOn(peer);
            ep = worker.connect(new InetSocketAddress(HOST, (int) l[0]));
            remote = ep.remote((byte[]) l[1]);
            ep.putLong(remote, 0, 1);
            ep.flush();
            peer.kill();
        }
        UcxEndpoint failed = ep;
        UcxEvent.PeerFailed event = awaitEvent(UcxEvent.PeerFailed.class, e -> e.endpoint() == failed);
        assertSame(ep, event.endpoint());
        assertTrue(ep.failed());
        MemchanException e = assertThrows(MemchanException.class, () -> failed.putLong(remote, 0, 2));
        assertEquals(MemchanException.Kind.DEVICE_ERROR, e.kind());
        assertTrue(e.getMessage().contains("failed"), e.getMessage());
        ep.close();
        worker.flush(); // the worker goes on
    }

    @Test
    void badInputIsRefusedAndChangesNothing() throws Exception {
        // no listener on the port: a clear refusal that names the address
        int freePort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            freePort = s.getLocalPort();
        }
        InetSocketAddress nobody = new InetSocketAddress(HOST, freePort);
        MemchanException refused = assertThrows(MemchanException.class, () -> worker.connect(nobody));
        assertTrue(refused.getMessage().contains(nobody.toString()), refused.getMessage());
        MemchanException unresolved = assertThrows(MemchanException.class,
                () -> worker.connect(InetSocketAddress.createUnresolved("no-such-host.invalid", 4000)));
        assertEquals(MemchanException.Kind.INVALID_ARGUMENT, unresolved.kind());
        // an address that is not this host's (TEST-NET-1), and a port already taken
        assertThrows(MemchanException.class, () -> worker.listen(new InetSocketAddress("192.0.2.1", 0)));
        try (UcxListener first = worker.listen(new InetSocketAddress(HOST, 0))) {
            assertEquals(new InetSocketAddress(HOST, first.address().getPort()), first.address(), "bound to the address given only");
            assertThrows(MemchanException.class, () -> worker.listen(first.address()));
        }

        try (UcxPeer peer = UcxPeer.start("bad"); Arena arena = Arena.ofConfined()) {
            Object[] l = listenOn(peer);
            UcxEndpoint ep = worker.connect(new InetSocketAddress(HOST, (int) l[0]));
            UcxRemoteMemory remote = ep.remote((byte[]) l[1]);
            long size = remote.length();
            // outside the registered range, negative, misaligned for an atomic
            MemchanException outside = assertThrows(MemchanException.class, () -> ep.putLong(remote, size - 4, -1));
            assertEquals(MemchanException.Kind.INVALID_ARGUMENT, outside.kind());
            assertTrue(outside.getMessage().contains("outside"), outside.getMessage());
            assertThrows(MemchanException.class, () -> ep.put(arena.allocate(16), remote, size - 8));
            assertThrows(MemchanException.class, () -> ep.getLong(remote, -8));
            assertThrows(MemchanException.class, () -> ep.fetchAdd(remote, size, 1));
            MemchanException misaligned = assertThrows(MemchanException.class, () -> ep.fetchAdd(remote, 3, 1));
            assertEquals(MemchanException.Kind.INVALID_ARGUMENT, misaligned.kind());
            // heap memory, a bad descriptor, a bad message id
            assertThrows(MemchanException.class, () -> ep.put(MemorySegment.ofArray(new byte[8]), remote, 0));
            assertThrows(MemchanException.class, () -> ep.remote(new byte[5]));
            assertThrows(MemchanException.class, () -> ep.remote(new byte[40]));
            assertThrows(MemchanException.class, () -> ep.send(UcxWorker.MAX_AM_ID + 1, arena.allocate(8), arena.allocate(8)));
            ep.flush();
            assertArrayEquals(new byte[UcxPeerMain.MEMORY], read(peer, 0, UcxPeerMain.MEMORY), "the peer's memory after refused accesses");

            // a closed endpoint
            ep.close();
            MemchanException closed = assertThrows(MemchanException.class, () -> ep.putLong(remote, 0, 1));
            assertEquals(MemchanException.Kind.CLOSED, closed.kind());
            assertThrows(MemchanException.class, ep::flush);

            // and the worker still works
            UcxEndpoint again = worker.connect(new InetSocketAddress(HOST, (int) l[0]));
            try (UcxRemoteMemory r = again.remote((byte[]) l[1])) {
                again.putLong(r, 0, 77);
                again.flush();
                assertEquals(77, MemorySegment.ofArray(read(peer, 0, 8)).get(JAVA_LONG_UNALIGNED, 0));
            } finally {
                again.close();
            }
        }
        assertNotNull(worker.progressThread());
    }

    @Test
    void oneHandlerPerMessageId() {
        worker.setHandler(AM_ID + 1, (from, header, payload) -> { });
        try {
            MemchanException e = assertThrows(MemchanException.class, () -> worker.setHandler(AM_ID + 1, (from, header, payload) -> { }));
            assertEquals(MemchanException.Kind.IN_USE, e.kind());
        } finally {
            worker.removeHandler(AM_ID + 1);
        }
    }
}
