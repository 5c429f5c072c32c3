package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.JoinRefusal.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The join handshake through the hub's front door ({@link JoinGate}, a plain TCP listener on loopback) from
 * nodes ({@link JoinHandshake#join}) and from plain TCP clients that write garbage. Nothing waits for a time to
 * pass: a wait is for an answer or for a counter, bounded by a generous deadline only; the one refusal that
 * takes the handshake time (an ASK, then silence) is at a gate whose handshake time is short.
 */
class JoinGateTest {
    private static final String FABRIC = "join-test";
    /** The node ID the admission refuses, as a hub refuses one already taken. */
    private static final long TAKEN_ID = 99;
    private static final JoinFields HUB_FIELDS = new JoinFields(7, new byte[]{'h', 'u', 'b'});
    private static final Duration ANSWER = Duration.ofSeconds(60);
    private static final Duration SHORT_HANDSHAKE = Duration.ofMillis(500);

    private static Path dir;
    private static Path secret;
    private static Path otherSecret;
    private static JoinGate gate;
    private static final List<JoinFields> ADMITTED = Collections.synchronizedList(new ArrayList<>());
    private static final List<JoinGate.Member> GONE = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void open() throws Exception {
        dir = Files.createTempDirectory("memchan-join-");
        secret = dir.resolve("secret");
        otherSecret = dir.resolve("other-secret");
        JoinSecret.create(secret);
        JoinSecret.create(otherSecret);
        gate = gate(ANSWER);
    }

    private static JoinGate gate(Duration handshakeTime) {
        return new JoinGate(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), JoinSecret.load(secret), FABRIC,
                new JoinGate.Admission() {
                    @Override
                    public JoinFields admit(JoinGate.Member member, JoinFields node) {
                        if (node.id() == TAKEN_ID) {
                            throw new MemchanException(MemchanException.Kind.IN_USE, "node ID " + TAKEN_ID + " is taken");
                        }
                        ADMITTED.add(node);
                        return HUB_FIELDS;
                    }

                    @Override
                    public void gone(JoinGate.Member member) {
                        GONE.add(member);
                    }
                }, handshakeTime);
    }

    @AfterAll
    static void close() throws IOException {
        if (gate != null) {
            gate.close();
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

    private static JoinHandshake.Joined join(Path secretFile, String fabric, long id, int version) {
        return JoinHandshake.join(gate.address(), JoinSecret.load(secretFile), fabric, new JoinFields(id, new byte[]{1, 2}), ANSWER, version);
    }

    private static JoinRefusal refusedJoin(Path secretFile, String fabric, long id, int version) {
        return assertThrows(JoinRefusal.class, () -> join(secretFile, fabric, id, version).link().close());
    }

    /** Waits (bounded) until {@code counter} reaches {@code expected}: counts the gate makes on its own threads. */
    private static void awaitCount(JoinGate at, LongSupplier counter, long expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (counter.getAsLong() < expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(expected, counter.getAsLong(), what + ": " + at.counters());
    }

    @Test
    void aNodeWithTheSecretJoinsStaysAMemberUntilItsConnectionEnds() throws Exception {
        long admitted = gate.counters().admitted();
        long refused = gate.counters().refusedTotal();
        int gone = GONE.size();
        JoinHandshake.Joined joined = join(secret, FABRIC, 5, JoinMessages.VERSION);
        assertEquals(HUB_FIELDS, joined.hub(), "the hub's fields from the WELCOME");
        assertTrue(ADMITTED.contains(new JoinFields(5, new byte[]{1, 2})), "admitted with its fields: " + ADMITTED);
        assertEquals(admitted + 1, gate.counters().admitted());
        assertEquals(refused, gate.counters().refusedTotal());
        assertEquals(gone, GONE.size(), "a member while its control connection is open");
        assertFalse(joined.link().isClosed());
        joined.link().close();
        awaitCount(gate, GONE::size, gone + 1, "the member's end, once its connection closed");
        assertEquals(refused, gate.counters().refusedTotal(), "a member leaving is no refusal");
    }

    @Test
    void aWrongSecretIsRefusedCountedAndChangesNothing() {
        int admittedBefore = ADMITTED.size();
        long badMacs = gate.counters().refused(Reason.BAD_MAC);
        JoinRefusal r = refusedJoin(otherSecret, FABRIC, 6, JoinMessages.VERSION);
        assertEquals(Reason.BAD_MAC, r.reason(), r.getMessage());
        assertTrue(r.byPeer(), "the hub refused: " + r.getMessage());
        assertEquals(badMacs + 1, gate.counters().refused(Reason.BAD_MAC), "counted before the REFUSED was sent");
        assertEquals(admittedBefore, ADMITTED.size(), "the admission was not asked");
    }

    @Test
    void aSecretFileOthersCanReadIsRefusedBeforeAnythingIsSent() throws Exception {
        Path loose = dir.resolve("loose-secret");
        Files.copy(secret, loose);
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rw-r--r--"));
        long started = gate.counters().started();
        MemchanException e = assertThrows(MemchanException.class, () -> join(loose, FABRIC, 5, JoinMessages.VERSION));
        assertEquals(MemchanException.Kind.PERMISSION, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("rw-r--r--"), e.getMessage());
        assertEquals(started, gate.counters().started(), "no connection was made");
    }

    @Test
    void aNodeOfAnotherVersionAnotherFabricAndARefusedAdmissionAreRefused() {
        long versions = gate.counters().refused(Reason.VERSION);
        JoinRefusal v = refusedJoin(secret, FABRIC, 5, JoinMessages.VERSION + 1);
        assertEquals(Reason.VERSION, v.reason(), v.getMessage());
        assertTrue(v.getMessage().contains("version " + (JoinMessages.VERSION + 1)), v.getMessage());
        assertEquals(versions + 1, gate.counters().refused(Reason.VERSION));

        JoinRefusal f = refusedJoin(secret, "other-fabric", 5, JoinMessages.VERSION);
        assertEquals(Reason.WRONG_FABRIC, f.reason(), f.getMessage());

        int admittedBefore = ADMITTED.size();
        JoinRefusal taken = refusedJoin(secret, FABRIC, TAKEN_ID, JoinMessages.VERSION);
        assertEquals(Reason.NOT_ADMITTED, taken.reason(), taken.getMessage());
        assertTrue(taken.getMessage().contains("node ID " + TAKEN_ID + " is taken"), taken.getMessage());
        assertEquals(admittedBefore, ADMITTED.size());
    }

    /** A plain TCP client of {@code at}'s port. */
    private static Socket client(JoinGate at) throws IOException {
        Socket s = new Socket(at.address().getAddress(), at.address().getPort());
        s.setSoTimeout((int) ANSWER.toMillis());
        return s;
    }

    private static byte[] frame(byte[] message) {
        return ByteBuffer.allocate(JoinLink.PREFIX + message.length).putInt(message.length).put(message).array();
    }

    /**
     * Writes {@code bytes} and returns the reason of the hub's REFUSED, or null when it closed without one (or
     * reset the connection: it closed with bytes of the client unread).
     */
    private static Reason sendAndRead(byte[] bytes, boolean leave) throws IOException {
        try (Socket s = client(gate)) {
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            if (leave) {
                s.shutdownOutput();
            }
            return refusalFrom(s);
        } catch (java.net.SocketException reset) {
            return null;
        }
    }

    /** The reason of the REFUSED the hub sends on {@code s} (after a HELLO, if one comes first), or null when it closes. */
    private static Reason refusalFrom(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (java.io.EOFException e) {
                return null;
            }
            byte[] message = in.readNBytes(length);
            if (JoinMessages.decode(message, JoinMessages.VERSION) instanceof JoinMessages.Refused r) {
                return r.reason();
            }
        }
    }

    @Test
    void garbageAtTheFrontDoorIsRefusedWithItsReasonAndTheGateGoesOn() throws Exception {
        long refused = gate.counters().refusedTotal();
        // 64 zero bytes: the write that aborts a UCX 1.13 listener; here, an empty frame. The gate closes the
        // connection with bytes unread, so the client may see a reset rather than the REFUSED: the count says it
        long malformed = gate.counters().refused(Reason.MALFORMED);
        sendAndRead(new byte[64], false);
        awaitCount(gate, () -> gate.counters().refused(Reason.MALFORMED), malformed + 1, "64 zero bytes");
        // random bytes: a length word beyond any message
        long oversized = gate.counters().refused(Reason.OVERSIZED);
        byte[] noise = new byte[4096];
        new Random(26).nextBytes(noise);
        noise[0] |= (byte) 0x80;
        sendAndRead(noise, false);
        awaitCount(gate, () -> gate.counters().refused(Reason.OVERSIZED), oversized + 1, "random bytes");
        // a frame of random bytes of a plausible length: not a join message
        byte[] framedNoise = frame(Arrays.copyOf(noise, 300));
        assertEquals(Reason.BAD_MAGIC, sendAndRead(framedNoise, false));
        // an oversized length word, nothing after it
        assertEquals(Reason.OVERSIZED, sendAndRead(ByteBuffer.allocate(4).putInt(JoinMessages.MAX_LENGTH + 1).array(), false));
        // a truncated ASK, then the client leaves: nobody to tell, but counted
        long truncated = gate.counters().refused(Reason.TRUNCATED);
        byte[] ask = frame(JoinMessages.ask(JoinMessages.VERSION, FABRIC));
        assertEquals(null, sendAndRead(Arrays.copyOf(ask, ask.length - 3), true));
        awaitCount(gate, () -> gate.counters().refused(Reason.TRUNCATED), truncated + 1, "the truncated ASK");
        // a JOIN in place of the ASK
        byte[] join = JoinMessages.join(JoinMessages.VERSION, new byte[JoinMessages.NONCE_LENGTH], FABRIC, new JoinFields(5, new byte[0]));
        assertEquals(Reason.UNEXPECTED, sendAndRead(frame(join), false));
        // a right ASK, then a JOIN whose MAC is made without the secret
        byte[] both = new byte[ask.length + JoinLink.PREFIX + join.length];
        System.arraycopy(ask, 0, both, 0, ask.length);
        System.arraycopy(frame(join), 0, both, ask.length, JoinLink.PREFIX + join.length);
        assertEquals(Reason.BAD_MAC, sendAndRead(both, false));
        assertEquals(refused + 7, gate.counters().refusedTotal(), gate.counters().toString());

        JoinHandshake.Joined good = join(secret, FABRIC, 5, JoinMessages.VERSION);
        good.link().close();
    }

    @Test
    void anAskThenSilenceIsRefusedAtTheHandshakeTime() throws Exception {
        try (JoinGate quick = gate(SHORT_HANDSHAKE); Socket s = client(quick)) {
            s.getOutputStream().write(frame(JoinMessages.ask(JoinMessages.VERSION, FABRIC)));
            s.getOutputStream().flush();
            assertEquals(Reason.TIMEOUT, refusalFrom(s), "the HELLO, then the refusal once the handshake time is over");
            assertEquals(1, quick.counters().refused(Reason.TIMEOUT), quick.counters().toString());
        }
    }

    @Test
    void aHundredConnectionsAtOnceAreBoundedThenTheGateServesANode() throws Exception {
        long busy = gate.counters().refused(Reason.BUSY);
        long disconnected = gate.counters().refused(Reason.DISCONNECTED);
        long started = gate.counters().started();
        int extra = 100 - JoinGate.MAX_PENDING;
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                clients.add(client(gate));
            }
            awaitCount(gate, () -> gate.counters().started(), started + 100, "every connection, accepted");
            awaitCount(gate, () -> gate.counters().refused(Reason.BUSY), busy + extra, "the connections beyond the bound");
        } finally {
            for (Socket s : clients) {
                s.close();
            }
        }
        awaitCount(gate, () -> gate.counters().refused(Reason.DISCONNECTED), disconnected + JoinGate.MAX_PENDING,
                "the handshakes in progress, ended by their clients");
        JoinHandshake.Joined good = join(secret, FABRIC, 5, JoinMessages.VERSION);
        good.link().close();
    }
}
