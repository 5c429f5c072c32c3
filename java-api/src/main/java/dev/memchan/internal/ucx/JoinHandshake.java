package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.JoinMessages.Hello;
import dev.memchan.internal.ucx.JoinMessages.Join;
import dev.memchan.internal.ucx.JoinMessages.Message;
import dev.memchan.internal.ucx.JoinMessages.Refused;
import dev.memchan.internal.ucx.JoinMessages.Welcome;
import dev.memchan.internal.ucx.JoinRefusal.Reason;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Locale;

/**
 * Who may join a {@code ucx://} fabric: a mutual challenge-response on the fabric's {@link JoinSecret}
 * (HMAC-SHA256), run over a plain TCP connection to the hub's front door ({@link JoinLink}, {@link JoinGate})
 * before the node's UCX endpoint exists. The
 * secret never travels; each side proves it holds it by a MAC over the whole exchange so far.
 * <pre>
 *   hub                                              node
 *    | ASK {version, fabric name}                     |
 *    |&lt;-----------------------------------------------|
 *    | hub: same version? same fabric name?           |
 *    | HELLO {version, fabric name, hub nonce}        |
 *    |-----------------------------------------------&gt;|  node: same version? same fabric name?
 *    |   JOIN {version, name, node nonce, node fields,|
 *    |         MAC_join}                              |
 *    |&lt;-----------------------------------------------|
 *    | hub: version, name, MAC_join (constant time)   |
 *    | WELCOME {hub fields, MAC_hub}  or  REFUSED     |
 *    |-----------------------------------------------&gt;|  node: MAC_hub (constant time)
 *
 *   MAC_join = HMAC(secret, "memchan-join\0" | ASK | HELLO | JOIN up to its MAC)
 *   MAC_hub  = HMAC(secret, "memchan-hub\0"  | ASK | HELLO | JOIN | WELCOME up to its MAC)
 * </pre>
 * The MACs cover the messages' exact bytes (a transcript, as TLS's Finished does), not fields picked
 * out of them: every byte either side sent is bound, the versions and names included, and no two
 * different exchanges share a MAC input. A JOIN binds the hub's fresh nonce, so a recorded JOIN does not
 * fit a later HELLO; a WELCOME binds the node's nonce and the whole JOIN, so a node knows it talks to a
 * holder of the secret, not to a relay of an old WELCOME. The two labels keep a JOIN's MAC from serving
 * as a WELCOME's. Either side that refuses sends REFUSED {reason, text} (never a MAC or the secret) and
 * closes the connection.
 *
 * <p>Each message is one frame of the connection ({@link JoinLink}). {@link JoinGate} runs the hub's side on
 * the connections it accepts; {@link #join} runs the node's side.
 */
public final class JoinHandshake {
    private static final byte[] JOIN_LABEL = "memchan-join\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HUB_LABEL = "memchan-hub\0".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private JoinHandshake() {
    }

    private static byte[] nonce() {
        byte[] n = new byte[JoinMessages.NONCE_LENGTH];
        RANDOM.nextBytes(n);
        return n;
    }

    /** HMAC over {@code label}, then {@code before} whole, then {@code last} without its final MAC bytes. */
    private static byte[] transcriptMac(JoinSecret secret, byte[] label, byte[] last, byte[]... before) {
        ByteBuffer[] parts = new ByteBuffer[before.length + 2];
        parts[0] = ByteBuffer.wrap(label);
        for (int i = 0; i < before.length; i++) {
            parts[i + 1] = ByteBuffer.wrap(before[i]);
        }
        parts[parts.length - 1] = ByteBuffer.wrap(last, 0, JoinMessages.macOffset(last));
        return secret.mac(parts);
    }

    private static byte[] seal(byte[] message, byte[] mac) {
        System.arraycopy(mac, 0, message, JoinMessages.macOffset(message), mac.length);
        return message;
    }

    /** A REFUSED received: the peer's refusal, raised here with its reason. */
    private static JoinRefusal refusedBy(Refused r, String who) {
        return new JoinRefusal(r.reason(), "the " + who + " refused the join (" + r.reason()
                + (r.reason() == Reason.UNKNOWN ? " code " + r.code() : "") + "): " + r.text(), true);
    }

    /**
     * The message in {@code message}, which must be a {@code type}; a REFUSED is the {@code peer}'s refusal,
     * raised here; anything else is {@code UNEXPECTED}.
     */
    private static <T extends Message> T expect(byte[] message, int version, Class<T> type, String peer) {
        Message m = JoinMessages.decode(message, version);
        if (m instanceof Refused r) {
            throw refusedBy(r, peer);
        }
        if (!type.isInstance(m)) {
            throw new JoinRefusal(Reason.UNEXPECTED, "a " + m.getClass().getSimpleName().toUpperCase(Locale.ROOT) + " where the "
                    + type.getSimpleName().toUpperCase(Locale.ROOT) + " was expected");
        }
        return type.cast(m);
    }

    /** The hub's side of one handshake, without transport: ASK in, HELLO out, JOIN in, WELCOME out. */
    static final class HubSide {
        private final JoinSecret secret;
        private final String fabric;
        private final int version;
        private byte[] ask;
        private byte[] hello;
        private byte[] join;

        HubSide(JoinSecret secret, String fabric, int version) {
            this.secret = secret;
            this.fabric = fabric;
            this.version = version;
        }

        /** Whether the ASK arrived (the handshake has begun). */
        boolean asked() {
            return ask != null;
        }

        /** The HELLO answering {@code message}, an ASK of this version and fabric; else {@link JoinRefusal}. */
        byte[] onAsk(byte[] message) {
            requireFabric(expect(message, version, JoinMessages.Ask.class, "node").fabric());
            ask = message.clone();
            hello = JoinMessages.hello(version, nonce(), fabric);
            return hello.clone();
        }

        private void requireFabric(String asked) {
            if (!asked.equals(fabric)) {
                throw new JoinRefusal(Reason.WRONG_FABRIC, "the node asks for fabric '" + JoinMessages.printable(asked)
                        + "', this hub serves '" + fabric + "'");
            }
        }


        /**
         * The node's fields from its JOIN once the JOIN is well-formed, for this fabric and version, and its
         * MAC right; else {@link JoinRefusal} (a REFUSED from the node: {@link JoinRefusal#byPeer()}).
         */
        JoinFields verifyJoin(byte[] message) {
            if (join != null || ask == null) {
                throw new JoinRefusal(Reason.UNEXPECTED, join != null ? "a second JOIN in one handshake" : "a JOIN before the ASK");
            }
            Join j = expect(message, version, Join.class, "node");
            requireFabric(j.fabric());
            if (!MessageDigest.isEqual(transcriptMac(secret, JOIN_LABEL, message, ask, hello), j.mac())) {
                throw new JoinRefusal(Reason.BAD_MAC, "the JOIN's MAC does not match this fabric's secret: the node does not hold it, "
                        + "or the JOIN was altered or recorded from another handshake");
            }
            join = message.clone();
            return j.fields();
        }

        /** The WELCOME carrying {@code hubFields}, after a JOIN verified. */
        byte[] welcome(JoinFields hubFields) {
            if (join == null) {
                throw new IllegalStateException("a WELCOME before a verified JOIN");
            }
            byte[] w = JoinMessages.welcome(version, hubFields);
            return seal(w, transcriptMac(secret, HUB_LABEL, w, ask, hello, join));
        }

        byte[] refused(Reason reason, String text) {
            return JoinMessages.refused(version, reason, text);
        }
    }

    /** The node's side of one handshake, without transport: ASK out, HELLO in, JOIN out, WELCOME in. */
    static final class NodeSide {
        private final JoinSecret secret;
        private final String fabric;
        private final JoinFields fields;
        private final int version;
        private final byte[] ask;
        private byte[] hello;
        private byte[] join;

        NodeSide(JoinSecret secret, String fabric, JoinFields fields, int version) {
            this.secret = secret;
            this.fabric = fabric;
            this.fields = fields;
            this.version = version;
            this.ask = JoinMessages.ask(version, fabric);
        }

        byte[] ask() {
            return ask.clone();
        }

        /** The JOIN answering {@code message}, a HELLO of this version and fabric; else {@link JoinRefusal}. */
        byte[] onHello(byte[] message) {
            if (hello != null) {
                throw new JoinRefusal(Reason.UNEXPECTED, "a second HELLO in one handshake");
            }
            Hello h = expect(message, version, Hello.class, "hub");
            if (!h.fabric().equals(fabric)) {
                throw new JoinRefusal(Reason.WRONG_FABRIC, "the hub serves fabric '" + JoinMessages.printable(h.fabric())
                        + "', this node asks for '" + fabric + "'");
            }
            hello = message.clone();
            byte[] j = JoinMessages.join(version, nonce(), fabric, fields);
            join = seal(j, transcriptMac(secret, JOIN_LABEL, j, ask, hello));
            return join.clone();
        }

        /** The hub's fields from {@code message}, a WELCOME whose MAC proves the hub holds the secret; else {@link JoinRefusal}. */
        JoinFields onWelcome(byte[] message) {
            if (join == null) {
                throw new JoinRefusal(Reason.UNEXPECTED, "a message before the HELLO");
            }
            Welcome w = expect(message, version, Welcome.class, "hub");
            if (!MessageDigest.isEqual(transcriptMac(secret, HUB_LABEL, message, ask, hello, join), w.mac())) {
                throw new JoinRefusal(Reason.BAD_MAC, "the WELCOME's MAC does not match this fabric's secret: the hub does not hold it");
            }
            return w.fields();
        }

        byte[] refused(Reason reason, String text) {
            return JoinMessages.refused(version, reason, text);
        }
    }

    /** A node that joined: its control connection to the hub, and the hub's fields from the WELCOME. */
    record Joined(JoinLink link, JoinFields hub) {
    }

    /**
     * Connects to the hub's front door at {@code hub} (a plain TCP connection, {@link JoinLink}) and joins fabric
     * {@code fabric} with {@code fields}; returns the connection, open, once the hub's WELCOME proved the hub holds
     * {@code secret} too: it stays open as the node's control connection. A refusal (by the hub, or by this side:
     * another version or fabric, a hub without the secret, a garbled message, no answer within {@code timeout})
     * throws {@link JoinRefusal} with its reason, after sending REFUSED when this side refused, and closes the
     * connection; no hub listening there throws {@code DEVICE_ERROR}.
     */
    static Joined join(InetSocketAddress hub, JoinSecret secret, String fabric, JoinFields fields, Duration timeout) {
        return join(hub, secret, fabric, fields, timeout, JoinMessages.VERSION);
    }

    /** {@link #join} speaking protocol {@code version}: the tests' node of another version. */
    static Joined join(InetSocketAddress hub, JoinSecret secret, String fabric, JoinFields fields, Duration timeout, int version) {
        SocketAddresses.require(hub, "join");
        NodeSide node = new NodeSide(secret, fabric, fields, version);
        long deadline = System.nanoTime() + timeout.toNanos();
        JoinLink link;
        try {
            link = JoinLink.connect(hub, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        } catch (IOException e) {
            throw new MemchanException(MemchanException.Kind.DEVICE_ERROR, "no hub answers at " + hub + ": " + e.getMessage(), e);
        }
        try {
            link.write(node.ask());
            link.write(node.onHello(link.read(deadline)));
            Joined joined = new Joined(link, node.onWelcome(link.read(deadline)));
            link = null;
            return joined;
        } catch (JoinRefusal r) {
            if (!r.byPeer()) {
                link.writeQuietly(node.refused(r.reason(), r.getMessage()));
            }
            throw new JoinRefusal(r.reason(), "joining fabric '" + fabric + "' at " + hub + ": " + r.getMessage(), r.byPeer());
        } finally {
            if (link != null) {
                link.close();
            }
        }
    }
}
