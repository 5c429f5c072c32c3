package dev.memchan.internal.ucx;

import dev.memchan.internal.ucx.JoinHandshake.HubSide;
import dev.memchan.internal.ucx.JoinHandshake.NodeSide;
import dev.memchan.internal.ucx.JoinRefusal.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The handshake's two sides and its codec without a transport: the exchange, each refusal, and fuzzing
 * (random bytes, every truncation, every single-bit flip of valid messages): always a {@link JoinRefusal}
 * with a reason, never another exception, and never a changed message accepted.
 */
class JoinHandshakeTest {
    private static final String FABRIC = "fuzz";
    private static final JoinFields NODE = new JoinFields(3, new byte[]{1, 2, 3, 4, 5});
    private static final JoinFields HUB = new JoinFields(-1, new byte[]{9, 8});
    private static final int V = JoinMessages.VERSION;

    private static Path dir;
    private static JoinSecret secret;
    private static JoinSecret otherSecret;

    @BeforeAll
    static void secrets() throws IOException {
        dir = Files.createTempDirectory("memchan-join-unit-");
        secret = JoinSecret.create(dir.resolve("a"));
        otherSecret = JoinSecret.create(dir.resolve("b"));
    }

    @AfterAll
    static void remove() throws IOException {
        Files.delete(dir.resolve("a"));
        Files.delete(dir.resolve("b"));
        Files.delete(dir);
    }

    /** One complete exchange, each message kept. */
    private record Exchange(HubSide hub, NodeSide node, byte[] ask, byte[] hello, byte[] join, byte[] welcome) {
    }

    private static Exchange exchange() {
        HubSide hub = new HubSide(secret, FABRIC, V);
        NodeSide node = new NodeSide(secret, FABRIC, NODE, V);
        byte[] ask = node.ask();
        byte[] hello = hub.onAsk(ask);
        byte[] join = node.onHello(hello);
        assertEquals(NODE, hub.verifyJoin(join));
        byte[] welcome = hub.welcome(HUB);
        return new Exchange(hub, node, ask, hello, join, welcome);
    }

    private static JoinRefusal refused(Reason reason, Executable step) {
        JoinRefusal r = assertThrows(JoinRefusal.class, step);
        assertEquals(reason, r.reason(), r.getMessage());
        return r;
    }

    @Test
    void bothSidesWithTheSecretCompleteTheExchange() {
        Exchange e = exchange();
        assertEquals(HUB, e.node().onWelcome(e.welcome()));
        assertEquals(JoinMessages.MAC_LENGTH, e.join().length - JoinMessages.macOffset(e.join()));
        assertFalse(Arrays.equals(exchange().hello(), e.hello()), "a fresh hub nonce per handshake");
    }

    @Test
    void aWrongSecretIsRefusedOnEitherSide() {
        HubSide hub = new HubSide(secret, FABRIC, V);
        NodeSide stranger = new NodeSide(otherSecret, FABRIC, NODE, V);
        byte[] join = stranger.onHello(hub.onAsk(stranger.ask()));
        refused(Reason.BAD_MAC, () -> hub.verifyJoin(join));

        // a hub without the secret cannot get past a node's JOIN check, and its WELCOME fails at the node
        HubSide fakeHub = new HubSide(otherSecret, FABRIC, V);
        NodeSide node = new NodeSide(secret, FABRIC, NODE, V);
        byte[] realJoin = node.onHello(fakeHub.onAsk(node.ask()));
        refused(Reason.BAD_MAC, () -> fakeHub.verifyJoin(realJoin));
        Exchange other = exchange();
        refused(Reason.BAD_MAC, () -> node.onWelcome(other.welcome()));
    }

    @Test
    void aRecordedJoinOrWelcomeDoesNotFitAnotherHandshake() {
        Exchange recorded = exchange();
        HubSide hub = new HubSide(secret, FABRIC, V);
        hub.onAsk(recorded.ask());
        refused(Reason.BAD_MAC, () -> hub.verifyJoin(recorded.join()));

        NodeSide node = new NodeSide(secret, FABRIC, NODE, V);
        node.onHello(recorded.hello()); // a relayed HELLO: the node's own nonce still differs
        refused(Reason.BAD_MAC, () -> node.onWelcome(recorded.welcome()));
    }

    @Test
    void versionsFabricsAndOrderAreChecked() {
        HubSide hub = new HubSide(secret, FABRIC, V);
        JoinRefusal version = refused(Reason.VERSION, () -> hub.onAsk(new NodeSide(secret, FABRIC, NODE, V + 1).ask()));
        assertTrue(version.getMessage().contains("version " + (V + 1)), version.getMessage());
        refused(Reason.WRONG_FABRIC, () -> new HubSide(secret, FABRIC, V).onAsk(new NodeSide(secret, "other", NODE, V).ask()));
        refused(Reason.WRONG_FABRIC, () -> new NodeSide(secret, "other", NODE, V).onHello(new HubSide(secret, FABRIC, V).onAsk(
                new NodeSide(secret, FABRIC, NODE, V).ask())));
        refused(Reason.UNEXPECTED, () -> new HubSide(secret, FABRIC, V).verifyJoin(exchange().join()));
        Exchange e = exchange();
        refused(Reason.UNEXPECTED, () -> e.hub().verifyJoin(e.join()));
        refused(Reason.UNEXPECTED, () -> new NodeSide(secret, FABRIC, NODE, V).onWelcome(e.welcome()));

        // a REFUSED of any version is read, with its reason, as the peer's
        byte[] refusedV9 = JoinMessages.refused(9, Reason.BUSY, "line one\nline two");
        JoinRefusal r = refused(Reason.BUSY, () -> new NodeSide(secret, FABRIC, NODE, V).onHello(refusedV9));
        assertTrue(r.byPeer());
        assertTrue(r.getMessage().contains("line one?line two"), "control characters of the peer's text replaced: " + r.getMessage());
        byte[] unknownCode = JoinMessages.refused(V, Reason.BUSY, "x");
        ByteBuffer.wrap(unknownCode).order(ByteOrder.LITTLE_ENDIAN).putShort(JoinMessages.REFUSED_REASON_OFFSET, (short) 999);
        refused(Reason.UNKNOWN, () -> new NodeSide(secret, FABRIC, NODE, V).onHello(unknownCode));
    }

    @Test
    void theCodecRoundTripsEveryMessage() {
        byte[] nonce = new byte[JoinMessages.NONCE_LENGTH];
        new Random(1).nextBytes(nonce);
        String longName = "n".repeat(JoinMessages.MAX_NAME);
        JoinFields big = new JoinFields(Long.MIN_VALUE, new byte[JoinFields.MAX_DATA]);
        assertEquals(longName, assertInstanceOf(JoinMessages.Ask.class, JoinMessages.decode(JoinMessages.ask(V, longName), V)).fabric());
        JoinMessages.Hello h = assertInstanceOf(JoinMessages.Hello.class, JoinMessages.decode(JoinMessages.hello(V, nonce, "f\u00e9"), V));
        assertArrayEquals(nonce, h.nonce());
        assertEquals("f\u00e9", h.fabric());
        byte[] longest = JoinMessages.join(V, nonce, longName, big);
        assertEquals(JoinMessages.MAX_LENGTH, longest.length);
        JoinMessages.Join j = assertInstanceOf(JoinMessages.Join.class, JoinMessages.decode(longest, V));
        assertEquals(big, j.fields());
        assertEquals(longName, j.fabric());
        assertEquals(big, assertInstanceOf(JoinMessages.Welcome.class, JoinMessages.decode(JoinMessages.welcome(V, big), V)).fields());
        JoinMessages.Refused r = assertInstanceOf(JoinMessages.Refused.class,
                JoinMessages.decode(JoinMessages.refused(V, Reason.TIMEOUT, "\u00e9".repeat(JoinMessages.MAX_TEXT)), V));
        assertEquals(Reason.TIMEOUT, r.reason());
        assertEquals("\u00e9".repeat(JoinMessages.MAX_TEXT / 2), r.text(), "a long text cut on a character boundary");
        refused(Reason.MALFORMED, () -> JoinMessages.ask(V, ""));
        refused(Reason.MALFORMED, () -> JoinMessages.ask(V, longName + "n"));
    }

    /** Decodes {@code m} as every side would, and counts the reason; anything but a JoinRefusal fails the test. */
    private static void decodeCounting(byte[] m, Map<Reason, Integer> reasons, String what) {
        try {
            JoinMessages.decode(m, V); // random bytes that form a message: possible, and what any side checks next
        } catch (JoinRefusal r) {
            reasons.merge(r.reason(), 1, Integer::sum);
        } catch (RuntimeException | Error e) {
            fail(what + ": " + e + " on " + Arrays.toString(m));
        }
    }

    @Test
    void randomBytesAreRefusedCleanly() {
        Random random = new Random(26);
        Map<Reason, Integer> reasons = new EnumMap<>(Reason.class);
        for (int i = 0; i < 20_000; i++) {
            byte[] m = new byte[random.nextInt(JoinMessages.MAX_LENGTH + 64)];
            random.nextBytes(m);
            if (i % 2 == 1 && m.length >= JoinMessages.HEADER_LENGTH) {
                // a right header over random content: the body checks get exercised, not only the magic
                ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(JoinMessages.MAGIC_OFFSET, JoinMessages.MAGIC)
                        .putShort(JoinMessages.VERSION_OFFSET, (short) V).put(JoinMessages.TYPE_OFFSET, (byte) (1 + random.nextInt(5)))
                        .put(JoinMessages.HEADER_RESERVED_OFFSET, (byte) 0).putInt(JoinMessages.LENGTH_OFFSET, m.length);
            }
            decodeCounting(m, reasons, "random message " + i);
        }
        for (Reason r : new Reason[]{Reason.BAD_MAGIC, Reason.TRUNCATED, Reason.OVERSIZED, Reason.MALFORMED}) {
            assertTrue(reasons.getOrDefault(r, 0) > 0, "random input reaches " + r + ": " + reasons);
        }
    }

    @Test
    void everyTruncationIsRefusedAsTruncated() {
        Exchange e = exchange();
        for (byte[] m : new byte[][]{e.ask(), e.hello(), e.join(), e.welcome(), JoinMessages.refused(V, Reason.BUSY, "busy")}) {
            for (int n = 0; n < m.length; n++) {
                byte[] cut = Arrays.copyOf(m, n);
                JoinRefusal r = assertThrows(JoinRefusal.class, () -> JoinMessages.decode(cut, V), "a " + n + "-byte prefix");
                assertEquals(Reason.TRUNCATED, r.reason(), n + " of " + m.length + " bytes: " + r.getMessage());
            }
        }
    }

    /** Every message with bit {@code bit} flipped. */
    private static byte[] flipped(byte[] m, int bit) {
        byte[] f = m.clone();
        f[bit / 8] ^= (byte) (1 << (bit % 8));
        return f;
    }

    @Test
    void everyBitFlipOfAValidExchangeIsRefused() {
        Exchange e = exchange();
        for (int bit = 0; bit < e.ask().length * 8; bit++) {
            byte[] ask = flipped(e.ask(), bit);
            HubSide hub = new HubSide(secret, FABRIC, V);
            try {
                // a flip the ASK's checks miss (in the name's case, say) changes the transcript: the JOIN then fails
                byte[] hello = hub.onAsk(ask);
                byte[] join = new NodeSide(secret, FABRIC, NODE, V).onHello(hello);
                refused(Reason.BAD_MAC, () -> hub.verifyJoin(join));
            } catch (JoinRefusal expected) {
                // refused at the ASK
            }
        }
        for (int bit = 0; bit < e.hello().length * 8; bit++) {
            byte[] hello = flipped(e.hello(), bit);
            NodeSide node = new NodeSide(secret, FABRIC, NODE, V);
            HubSide hub = new HubSide(secret, FABRIC, V);
            hub.onAsk(node.ask());
            try {
                byte[] join = node.onHello(hello); // the nonce's flips pass here, and the JOIN then fits no hub
                refused(Reason.BAD_MAC, () -> hub.verifyJoin(join));
            } catch (JoinRefusal expected) {
                // refused at the HELLO
            }
        }
        // the JOIN and the WELCOME against the state they belong to: a refusal changes nothing, so the
        // unflipped message still completes the exchange after every flipped one was refused
        HubSide hub = new HubSide(secret, FABRIC, V);
        NodeSide node = new NodeSide(secret, FABRIC, NODE, V);
        byte[] join = node.onHello(hub.onAsk(node.ask()));
        for (int bit = 0; bit < join.length * 8; bit++) {
            byte[] f = flipped(join, bit);
            assertThrows(JoinRefusal.class, () -> hub.verifyJoin(f), "bit " + bit + " of the JOIN");
        }
        assertEquals(NODE, hub.verifyJoin(join));
        byte[] welcome = hub.welcome(HUB);
        for (int bit = 0; bit < welcome.length * 8; bit++) {
            byte[] f = flipped(welcome, bit);
            assertThrows(JoinRefusal.class, () -> node.onWelcome(f), "bit " + bit + " of the WELCOME");
        }
        assertEquals(HUB, node.onWelcome(welcome));
    }
}
