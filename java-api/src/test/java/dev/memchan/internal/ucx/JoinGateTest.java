package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.JoinRefusal.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The join handshake between this JVM as the hub ({@link JoinGate} on a listener over TCP on loopback)
 * and nodes in their own JVMs ({@link JoinPeerMain}), plus plain TCP clients that write garbage to the
 * listener's port. Nothing waits for a time to pass: a wait is for an answer or for a counter, bounded
 * by a generous deadline only.
 */
class JoinGateTest {
    private static final Map<String, String> LOOPBACK_TCP = Map.of("TLS", "tcp", "NET_DEVICES", "lo");
    private static final String HOST = "127.0.0.1";
    private static final String FABRIC = "join-test";
    /** A message id of the hub's own protocol, which a node may use only once admitted. */
    private static final int APP_ID = 9;
    /** The node ID the admission refuses, as a hub refuses one already taken. */
    private static final long TAKEN_ID = 99;
    /** The header of UCX's connection request on the listener's port: an 8-byte length, then status and padding. */
    private static final int REQUEST_HEADER = 16;
    private static final JoinFields HUB_FIELDS = new JoinFields(7, new byte[]{'h', 'u', 'b'});

    private static Path dir;
    private static Path secret;
    private static Path otherSecret;
    private static UcxContext context;
    private static UcxWorker worker;
    private static UcxListener listener;
    private static volatile JoinGate gate;
    private static UcxPeer node;
    private static final List<JoinFields> ADMITTED = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> APP_MESSAGES = Collections.synchronizedList(new ArrayList<>());
    private static final List<UcxEvent.HandlerFailed> HANDLER_FAILURES = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void open() throws Exception {
        dir = Files.createTempDirectory("memchan-join-");
        secret = dir.resolve("secret");
        otherSecret = dir.resolve("other-secret");
        JoinSecret hubSecret = JoinSecret.create(secret);
        JoinSecret.create(otherSecret);
        context = UcxContext.open(LOOPBACK_TCP);
        worker = context.newWorker("hub", e -> {
            if (e instanceof UcxEvent.Accepted a) {
                gate.accepted(a.endpoint());
            } else if (e instanceof UcxEvent.PeerFailed f) {
                gate.peerFailed(f.endpoint());
            } else if (e instanceof UcxEvent.HandlerFailed f) {
                HANDLER_FAILURES.add(f);
            }
        });
        gate = new JoinGate(worker, hubSecret, FABRIC, (endpoint, fields) -> {
            if (fields.id() == TAKEN_ID) {
                throw new MemchanException(MemchanException.Kind.IN_USE, "node ID " + TAKEN_ID + " is taken");
            }
            ADMITTED.add(fields);
            return HUB_FIELDS;
        }, UcxPeer.ANSWER);
        worker.setHandler(APP_ID, (from, header, payload) -> APP_MESSAGES.add((gate.isAuthenticated(from) ? "member " : "stranger ")
                + HexFormat.of().formatHex(payload.toArray(JAVA_BYTE))));
        listener = worker.listen(new InetSocketAddress(HOST, 0));
        node = UcxPeer.start("joiner", JoinPeerMain.class, List.of());
    }

    @AfterAll
    static void close() throws IOException {
        if (node != null) {
            node.close();
        }
        if (context != null) {
            context.close();
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    private static String join(Path secretFile, String fabric, long id, String data, int version, String answer) throws Exception {
        return node.request("join " + HOST + " " + listener.address().getPort() + " " + secretFile + " " + fabric + " " + id + " " + data
                + " " + version, answer);
    }

    /** Waits (bounded) until {@code counter} reaches {@code expected}: counts the hub makes after the node answered. */
    private static void awaitCount(LongSupplier counter, long expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + UcxPeer.ANSWER.toNanos();
        while (counter.getAsLong() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, counter.getAsLong(), what + ": " + gate.counters());
    }

    @Test
    void aNodeWithTheSecretJoinsAndIsAMember() throws Exception {
        long admitted = gate.counters().admitted();
        long refused = gate.counters().refusedTotal();
        assertEquals("7 " + HexFormat.of().formatHex(HUB_FIELDS.data()), join(secret, FABRIC, 5, "abcd", JoinMessages.VERSION, "joined"),
                "the hub's fields from the WELCOME");
        assertTrue(ADMITTED.contains(new JoinFields(5, new byte[]{(byte) 0xab, (byte) 0xcd})), "admitted with its fields: " + ADMITTED);
        assertEquals(admitted + 1, gate.counters().admitted());
        assertEquals(refused, gate.counters().refusedTotal());
        node.request("send " + APP_ID + " 0102", "sent");
        long deadline = System.nanoTime() + UcxPeer.ANSWER.toNanos();
        while (!APP_MESSAGES.contains("member 0102") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(APP_MESSAGES.contains("member 0102"), "the member's message, from an authenticated endpoint: " + APP_MESSAGES);
    }

    @Test
    void aWrongSecretIsRefusedCountedAndChangesNothing() throws Exception {
        int admittedBefore = ADMITTED.size();
        long badMacs = gate.counters().refused(Reason.BAD_MAC);
        String answer = join(otherSecret, FABRIC, 6, "-", JoinMessages.VERSION, "refused");
        assertTrue(answer.startsWith("BAD_MAC PEER "), answer);
        assertEquals(badMacs + 1, gate.counters().refused(Reason.BAD_MAC), "counted before the REFUSED was sent");
        assertEquals(admittedBefore, ADMITTED.size(), "the admission was not asked");
    }

    @Test
    void aSecretFileOthersCanReadIsRefusedBeforeAnythingIsSent() throws Exception {
        Path loose = dir.resolve("loose-secret");
        Files.copy(secret, loose);
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rw-r--r--"));
        long started = gate.counters().started();
        String answer = join(loose, FABRIC, 5, "-", JoinMessages.VERSION, "error");
        assertTrue(answer.startsWith("PERMISSION ") && answer.contains(loose.toString()) && answer.contains("rw-r--r--"), answer);
        // the next join is the only handshake the gate starts: the refused one never connected
        join(secret, FABRIC, 5, "-", JoinMessages.VERSION, "joined");
        assertEquals(started + 1, gate.counters().started(), gate.counters().toString());
    }

    @Test
    void aNodeOfAnotherVersionIsRefusedOnBothSides() throws Exception {
        long versions = gate.counters().refused(Reason.VERSION);
        // the hub reads the node's version in its ASK, refuses and says why (a REFUSED every version reads)
        String answer = join(secret, FABRIC, 5, "-", JoinMessages.VERSION + 1, "refused");
        assertTrue(answer.startsWith("VERSION PEER ") && answer.contains("version " + (JoinMessages.VERSION + 1)), answer);
        assertEquals(versions + 1, gate.counters().refused(Reason.VERSION), "counted before the REFUSED was sent");
        // a JOIN of another version after a right ASK: refused too
        byte[] join = JoinMessages.join(JoinMessages.VERSION + 1, new byte[JoinMessages.NONCE_LENGTH], FABRIC, new JoinFields(5, new byte[0]));
        String raw = raw(FABRIC, join);
        assertTrue(raw.startsWith("VERSION "), raw);
        assertEquals(versions + 2, gate.counters().refused(Reason.VERSION));
    }

    @Test
    void anotherFabricAndARefusedAdmissionAreRefused() throws Exception {
        long wrongFabric = gate.counters().refused(Reason.WRONG_FABRIC);
        String answer = join(secret, "other-fabric", 5, "-", JoinMessages.VERSION, "refused");
        assertTrue(answer.startsWith("WRONG_FABRIC PEER ") && answer.contains(FABRIC), answer);
        assertEquals(wrongFabric + 1, gate.counters().refused(Reason.WRONG_FABRIC));

        int admittedBefore = ADMITTED.size();
        String taken = join(secret, FABRIC, TAKEN_ID, "-", JoinMessages.VERSION, "refused");
        assertTrue(taken.startsWith("NOT_ADMITTED PEER ") && taken.contains("node ID " + TAKEN_ID + " is taken"), taken);
        assertEquals(admittedBefore, ADMITTED.size());
    }

    /**
     * What the hub answers {@code bytes} in place of the ASK ({@code fabric} "-"), or in place of the JOIN
     * after an ASK for {@code fabric}: "REASON text" of its REFUSED.
     */
    private static String raw(String fabric, byte[] bytes) throws Exception {
        return node.request("raw " + HOST + " " + listener.address().getPort() + " " + fabric + " " + HexFormat.of().formatHex(bytes), "answer");
    }

    @Test
    void garbageInPlaceOfTheJoinIsRefusedWithItsReason() throws Exception {
        Random random = new Random(26);
        byte[] noise = new byte[300];
        random.nextBytes(noise);
        assertTrue(raw("-", noise).startsWith("BAD_MAGIC "));
        assertTrue(raw(FABRIC, noise).startsWith("BAD_MAGIC "));
        byte[] join = JoinMessages.join(JoinMessages.VERSION, new byte[JoinMessages.NONCE_LENGTH], FABRIC, new JoinFields(5, new byte[16]));
        assertTrue(raw(FABRIC, Arrays.copyOf(join, join.length - 1)).startsWith("TRUNCATED "));
        assertTrue(raw("-", Arrays.copyOf(join, 7)).startsWith("TRUNCATED "));
        byte[] huge = Arrays.copyOf(join, JoinMessages.MAX_LENGTH + 1);
        assertTrue(raw(FABRIC, huge).startsWith("OVERSIZED "));
        String unexpected = raw("-", join);
        assertTrue(unexpected.startsWith("UNEXPECTED "), unexpected);
        String badMac = raw(FABRIC, join);
        assertTrue(badMac.startsWith("BAD_MAC "), badMac);
        // the gate goes on serving
        join(secret, FABRIC, 5, "-", JoinMessages.VERSION, "joined");
    }

    /** Writes {@code bytes} to the listener's port from a plain TCP client, then disconnects. */
    private static void writeAndLeave(byte[] bytes, int length) throws IOException {
        InetSocketAddress at = listener.address();
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.getOutputStream().write(bytes, 0, length);
            s.getOutputStream().flush();
        }
    }

    /**
     * Plain TCP clients on the listener's port. UCX reads a connection request there first (its tcp_sockcm:
     * an 8-byte length, 8 bytes more of header, then that many bytes of UCP's wire-up data) and hands the
     * application nothing until a whole request arrived; see {@link JoinGate} for what it does with each
     * kind of garbage, including the kind that aborts the process, which this test cannot send.
     */
    @Test
    void plainTcpClientsWritingGarbageDoNotStopTheHub() throws Exception {
        byte[] request = recordClientBytes();
        long length = MemorySegment.ofArray(request).get(JAVA_LONG_UNALIGNED, 0);
        assertTrue(length > 0 && length + REQUEST_HEADER <= request.length, "a recorded request: " + HexFormat.of().formatHex(request));
        int requestLength = (int) (REQUEST_HEADER + length);
        long started = gate.counters().started();
        long failedAccepts = HANDLER_FAILURES.size();

        // random bytes: their first word, as a length, is beyond what follows, so UCX waits, then drops the connection
        byte[] noise = new byte[4096];
        new Random(3).nextBytes(noise);
        noise[7] |= (byte) 0x80; // a length word of 2^63 or more: 4096 random bytes have that with probability 1/2 only
        writeAndLeave(noise, noise.length);
        // a truncated request: UCX waits for the rest, then drops the connection
        writeAndLeave(request, requestLength / 2);
        // a whole request of random wire-up data: UCP refuses it when the worker accepts ("unsupported sa_data version")
        byte[] framedNoise = Arrays.copyOf(request, requestLength);
        byte[] random = new byte[(int) length];
        new Random(4).nextBytes(random);
        System.arraycopy(random, 0, framedNoise, REQUEST_HEADER, random.length);
        writeAndLeave(framedNoise, framedNoise.length);
        awaitCount(() -> HANDLER_FAILURES.size(), failedAccepts + 1, "the worker's refusal to accept the random wire-up data");
        assertEquals(started, gate.counters().started(), "nothing of the garbage reached the gate");
        // a real request replayed, its client staying connected: UCX accepts an endpoint whose wire-up never
        // completes (the request names the recorded node's worker, which never asked); the gate waits for it to speak,
        // and serves a good node meanwhile; when the client leaves, the handshake ends as DISCONNECTED
        long disconnected = gate.counters().refused(Reason.DISCONNECTED);
        InetSocketAddress at = listener.address();
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.getOutputStream().write(request, 0, requestLength);
            s.getOutputStream().flush();
            awaitCount(() -> gate.counters().started(), started + 1, "the replayed request, accepted");
            long admitted = gate.counters().admitted();
            join(secret, FABRIC, 5, "-", JoinMessages.VERSION, "joined");
            assertEquals(admitted + 1, gate.counters().admitted(), "a good node joins while the replayed connection stays open");
        }
        awaitCount(() -> gate.counters().refused(Reason.DISCONNECTED), disconnected + 1, "the replayed request's handshake, ended");

        long admitted = gate.counters().admitted();
        join(secret, FABRIC, 5, "-", JoinMessages.VERSION, "joined");
        assertEquals(admitted + 1, gate.counters().admitted(), "the hub serves a good node after the garbage");
    }

    /** The bytes a real joining node writes to the listener's port, seen through a relay that records them. */
    private static byte[] recordClientBytes() throws Exception {
        InetSocketAddress at = listener.address();
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        try (ServerSocket relay = new ServerSocket(0, 1, at.getAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket client = relay.accept(); Socket hub = new Socket(at.getAddress(), at.getPort())) {
                    Thread back = Thread.ofPlatform().daemon().start(() -> copy(hub, client, null));
                    copy(client, hub, seen);
                    back.join();
                } catch (IOException | InterruptedException e) {
                    System.err.println("relay: " + e);
                }
            });
            node.request("join " + HOST + " " + relay.getLocalPort() + " " + secret + " " + FABRIC + " 5 - " + JoinMessages.VERSION, "joined");
        }
        // joined: the request passed the relay, which records what it reads before it passes it on
        synchronized (seen) {
            return seen.toByteArray();
        }
    }

    private static void copy(Socket from, Socket to, ByteArrayOutputStream record) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            byte[] buffer = new byte[4096];
            int n;
            while ((n = in.read(buffer)) > 0) {
                if (record != null) {
                    synchronized (record) {
                        record.write(buffer, 0, n);
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed: the relay ends
        }
    }
}
