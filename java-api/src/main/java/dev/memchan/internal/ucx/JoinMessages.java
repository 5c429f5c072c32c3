package dev.memchan.internal.ucx;

import dev.memchan.internal.ucx.JoinRefusal.Reason;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The join handshake's five messages on the wire ({@link JoinHandshake}), in the manner of a record
 * descriptor: every offset a constant, every field little-endian, every message one frame of the join's
 * connection ({@link JoinLink}). Decoding checks each length before it reads and
 * throws nothing but {@link JoinRefusal}, whose reason says what was wrong.
 *
 * <p>Every message starts with the same header, and a REFUSED keeps its layout in every version, so
 * that a peer of another version can still read why it was refused:
 * <pre>
 *   0               4       6   7   8               12
 *   +---------------+-------+---+---+---------------+
 *   | MAGIC "mcJN"  |version|typ| 0 | total length  |
 *   +---------------+-------+---+---+---------------+
 *
 *   ASK (node to hub, type 5)
 *   12      14      16
 *   +-------+-------+------------ ... -+
 *   |namelen|   0   | fabric name UTF-8 |
 *   +-------+-------+------------ ... -+
 *
 *   HELLO (hub to node, type 1)
 *   12                                              44      46      48
 *   +-----------------------------------------------+-------+-------+------------ ... -+
 *   | hub nonce, 32 random bytes                    |namelen|   0   | fabric name UTF-8 |
 *   +-----------------------------------------------+-------+-------+------------ ... -+
 *
 *   JOIN (node to hub, type 2)
 *   12                              44              52      54      56
 *   +-------------------------------+---------------+-------+-------+------+------+----------+
 *   | node nonce, 32 random bytes   | fields id     |namelen|datalen| name | data | MAC (32) |
 *   +-------------------------------+---------------+-------+-------+------+------+----------+
 *
 *   WELCOME (hub to node, type 3)
 *   12      14      16              24
 *   +-------+-------+---------------+------+----------+
 *   |datalen|   0   | fields id     | data | MAC (32) |
 *   +-------+-------+---------------+------+----------+
 *
 *   REFUSED (either way, type 4; the same in every version)
 *   12      14      16
 *   +-------+-------+------------ ... -+
 *   |reason |textlen| text UTF-8       |
 *   +-------+-------+------------ ... -+
 * </pre>
 * Lengths are unsigned 16-bit; the fields id is a signed 64-bit word; a MAC is HMAC-SHA256, always the
 * last {@value #MAC_LENGTH} bytes of its message. Names are 1 to {@value #MAX_NAME} bytes, data up to
 * {@link JoinFields#MAX_DATA}, texts up to {@value #MAX_TEXT} (longer ones are cut when encoded).
 */
final class JoinMessages {
    static final int MAGIC = 0x4E4A_636D; // "mcJN" in little-endian byte order
    static final int VERSION = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int TYPE_OFFSET = 6;
    static final int HEADER_RESERVED_OFFSET = 7;
    static final int LENGTH_OFFSET = 8;
    static final int HEADER_LENGTH = 12;

    static final int TYPE_HELLO = 1;
    static final int TYPE_JOIN = 2;
    static final int TYPE_WELCOME = 3;
    static final int TYPE_REFUSED = 4;
    static final int TYPE_ASK = 5;

    static final int NONCE_LENGTH = 32;
    static final int MAC_LENGTH = 32;
    static final int MAX_NAME = 255;
    static final int MAX_TEXT = 1024;

    static final int ASK_NAME_LENGTH_OFFSET = 12;
    static final int ASK_RESERVED_OFFSET = 14;
    static final int ASK_NAME_OFFSET = 16;

    static final int HELLO_NONCE_OFFSET = 12;
    static final int HELLO_NAME_LENGTH_OFFSET = 44;
    static final int HELLO_RESERVED_OFFSET = 46;
    static final int HELLO_NAME_OFFSET = 48;

    static final int JOIN_NONCE_OFFSET = 12;
    static final int JOIN_ID_OFFSET = 44;
    static final int JOIN_NAME_LENGTH_OFFSET = 52;
    static final int JOIN_DATA_LENGTH_OFFSET = 54;
    static final int JOIN_NAME_OFFSET = 56;

    static final int WELCOME_DATA_LENGTH_OFFSET = 12;
    static final int WELCOME_RESERVED_OFFSET = 14;
    static final int WELCOME_ID_OFFSET = 16;
    static final int WELCOME_DATA_OFFSET = 24;

    static final int REFUSED_REASON_OFFSET = 12;
    static final int REFUSED_TEXT_LENGTH_OFFSET = 14;
    static final int REFUSED_TEXT_OFFSET = 16;

    /** The longest message: a JOIN with the longest name and data. */
    static final int MAX_LENGTH = JOIN_NAME_OFFSET + MAX_NAME + JoinFields.MAX_DATA + MAC_LENGTH;

    private JoinMessages() {
    }

    /** A decoded message. */
    sealed interface Message {
    }

    record Ask(String fabric) implements Message {
    }

    record Hello(byte[] nonce, String fabric) implements Message {
    }

    record Join(byte[] nonce, String fabric, JoinFields fields, byte[] mac) implements Message {
    }

    record Welcome(JoinFields fields, byte[] mac) implements Message {
    }

    record Refused(Reason reason, int code, String text) implements Message {
    }

    // ---- encoding ----------------------------------------------------------------------------------

    private static ByteBuffer start(int type, int length, int version) {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC).putShort(VERSION_OFFSET, (short) version).put(TYPE_OFFSET, (byte) type)
                .putInt(LENGTH_OFFSET, length);
        return b;
    }

    private static byte[] name(String fabric) {
        byte[] n = fabric.getBytes(StandardCharsets.UTF_8);
        if (n.length == 0 || n.length > MAX_NAME) {
            throw new JoinRefusal(Reason.MALFORMED, "a fabric name of " + n.length + " bytes: 1 to " + MAX_NAME);
        }
        return n;
    }

    static byte[] ask(int version, String fabric) {
        byte[] n = name(fabric);
        ByteBuffer b = start(TYPE_ASK, ASK_NAME_OFFSET + n.length, version);
        b.putShort(ASK_NAME_LENGTH_OFFSET, (short) n.length).put(ASK_NAME_OFFSET, n);
        return b.array();
    }

    static byte[] hello(int version, byte[] nonce, String fabric) {
        byte[] n = name(fabric);
        ByteBuffer b = start(TYPE_HELLO, HELLO_NAME_OFFSET + n.length, version);
        b.put(HELLO_NONCE_OFFSET, nonce).putShort(HELLO_NAME_LENGTH_OFFSET, (short) n.length).put(HELLO_NAME_OFFSET, n);
        return b.array();
    }

    /** A JOIN with its MAC bytes zero: {@link JoinHandshake} computes them over the rest. */
    static byte[] join(int version, byte[] nonce, String fabric, JoinFields fields) {
        byte[] n = name(fabric);
        ByteBuffer b = start(TYPE_JOIN, JOIN_NAME_OFFSET + n.length + fields.length() + MAC_LENGTH, version);
        b.put(JOIN_NONCE_OFFSET, nonce).putLong(JOIN_ID_OFFSET, fields.id()).putShort(JOIN_NAME_LENGTH_OFFSET, (short) n.length)
                .putShort(JOIN_DATA_LENGTH_OFFSET, (short) fields.length()).put(JOIN_NAME_OFFSET, n)
                .put(JOIN_NAME_OFFSET + n.length, fields.dataView());
        return b.array();
    }

    /** A WELCOME with its MAC bytes zero. */
    static byte[] welcome(int version, JoinFields fields) {
        ByteBuffer b = start(TYPE_WELCOME, WELCOME_DATA_OFFSET + fields.length() + MAC_LENGTH, version);
        b.putShort(WELCOME_DATA_LENGTH_OFFSET, (short) fields.length()).putLong(WELCOME_ID_OFFSET, fields.id())
                .put(WELCOME_DATA_OFFSET, fields.dataView());
        return b.array();
    }

    static byte[] refused(int version, Reason reason, String text) {
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        if (t.length > MAX_TEXT) {
            t = cutUtf8(t);
        }
        ByteBuffer b = start(TYPE_REFUSED, REFUSED_TEXT_OFFSET + t.length, version);
        b.putShort(REFUSED_REASON_OFFSET, (short) reason.code()).putShort(REFUSED_TEXT_LENGTH_OFFSET, (short) t.length)
                .put(REFUSED_TEXT_OFFSET, t);
        return b.array();
    }

    /** The first {@link #MAX_TEXT} bytes or fewer, ending on a character boundary. */
    private static byte[] cutUtf8(byte[] t) {
        int end = MAX_TEXT;
        while (end > 0 && (t[end] & 0xC0) == 0x80) {
            end--; // t[end] continues a character: cut before that character starts
        }
        return Arrays.copyOf(t, end);
    }

    /** Where a message's MAC starts (its last {@value #MAC_LENGTH} bytes). */
    static int macOffset(byte[] message) {
        return message.length - MAC_LENGTH;
    }

    // ---- decoding ----------------------------------------------------------------------------------

    /**
     * The message in {@code m}, checked against {@code version} (a REFUSED of any version is read).
     * Throws {@link JoinRefusal} and nothing else: the first thing wrong, checked in the order size, magic,
     * version, header, body.
     */
    static Message decode(byte[] m, int version) {
        if (m.length > MAX_LENGTH) {
            throw new JoinRefusal(Reason.OVERSIZED, "a message of " + m.length + " bytes, more than the " + MAX_LENGTH + " of any join message");
        }
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        if (m.length >= 4 && b.getInt(MAGIC_OFFSET) != MAGIC) {
            throw new JoinRefusal(Reason.BAD_MAGIC, "not a memchan join message (magic 0x" + Integer.toHexString(b.getInt(MAGIC_OFFSET)) + ")");
        }
        if (m.length < HEADER_LENGTH) {
            throw new JoinRefusal(Reason.TRUNCATED, "a message of " + m.length + " bytes, shorter than the " + HEADER_LENGTH + "-byte header");
        }
        int type = b.get(TYPE_OFFSET);
        int theirs = Short.toUnsignedInt(b.getShort(VERSION_OFFSET));
        if (theirs != version && type != TYPE_REFUSED) {
            throw new JoinRefusal(Reason.VERSION, "the peer speaks join protocol version " + theirs + ", this side version " + version);
        }
        long length = Integer.toUnsignedLong(b.getInt(LENGTH_OFFSET));
        if (length > m.length) {
            throw new JoinRefusal(Reason.TRUNCATED, "a message of " + m.length + " bytes whose header says " + length);
        }
        if (length != m.length || b.get(HEADER_RESERVED_OFFSET) != 0) {
            throw new JoinRefusal(Reason.MALFORMED, "a message of " + m.length + " bytes whose header says " + length
                    + (b.get(HEADER_RESERVED_OFFSET) != 0 ? ", reserved byte set" : ""));
        }
        return switch (type) {
            case TYPE_ASK -> decodeAsk(b, m);
            case TYPE_HELLO -> decodeHello(b, m);
            case TYPE_JOIN -> decodeJoin(b, m);
            case TYPE_WELCOME -> decodeWelcome(b, m);
            case TYPE_REFUSED -> decodeRefused(b, m);
            default -> throw new JoinRefusal(Reason.UNEXPECTED, "a message of unknown type " + type);
        };
    }

    /** Checks that {@code m} holds the fixed part of its type, {@code fixed} bytes, before its length fields are read. */
    private static void requireFixed(byte[] m, int fixed, String what) {
        if (m.length < fixed) {
            throw new JoinRefusal(Reason.TRUNCATED, "a " + what + " of " + m.length + " bytes, shorter than its fixed " + fixed);
        }
    }

    /** Checks that a fixed part of {@code fixed} bytes and variable parts summing to {@code variable} make exactly {@code m}. */
    private static void requireLength(byte[] m, int fixed, long variable, String what) {
        long expected = fixed + variable;
        if (expected > m.length) {
            throw new JoinRefusal(Reason.TRUNCATED, "a " + what + " of " + m.length + " bytes whose lengths say " + expected);
        }
        if (expected < m.length) {
            throw new JoinRefusal(Reason.MALFORMED, "a " + what + " of " + m.length + " bytes whose lengths say " + expected);
        }
    }

    private static String utf8(byte[] m, int offset, int length, String what) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(m, offset, length)).toString();
        } catch (CharacterCodingException e) {
            throw new JoinRefusal(Reason.MALFORMED, "the " + what + " is not UTF-8");
        }
    }

    private static String fabricName(byte[] m, int offset, int length) {
        if (length == 0) {
            throw new JoinRefusal(Reason.MALFORMED, "an empty fabric name");
        }
        if (length > MAX_NAME) {
            throw new JoinRefusal(Reason.MALFORMED, "a fabric name of " + length + " bytes, more than " + MAX_NAME);
        }
        return utf8(m, offset, length, "fabric name");
    }

    private static Ask decodeAsk(ByteBuffer b, byte[] m) {
        requireFixed(m, ASK_NAME_OFFSET, "ASK");
        int nameLength = Short.toUnsignedInt(b.getShort(ASK_NAME_LENGTH_OFFSET));
        requireLength(m, ASK_NAME_OFFSET, nameLength, "ASK");
        if (b.getShort(ASK_RESERVED_OFFSET) != 0) {
            throw new JoinRefusal(Reason.MALFORMED, "an ASK with reserved bytes set");
        }
        return new Ask(fabricName(m, ASK_NAME_OFFSET, nameLength));
    }

    private static Hello decodeHello(ByteBuffer b, byte[] m) {
        requireFixed(m, HELLO_NAME_OFFSET, "HELLO");
        int nameLength = Short.toUnsignedInt(b.getShort(HELLO_NAME_LENGTH_OFFSET));
        requireLength(m, HELLO_NAME_OFFSET, nameLength, "HELLO");
        if (b.getShort(HELLO_RESERVED_OFFSET) != 0) {
            throw new JoinRefusal(Reason.MALFORMED, "a HELLO with reserved bytes set");
        }
        return new Hello(Arrays.copyOfRange(m, HELLO_NONCE_OFFSET, HELLO_NONCE_OFFSET + NONCE_LENGTH),
                fabricName(m, HELLO_NAME_OFFSET, nameLength));
    }

    private static Join decodeJoin(ByteBuffer b, byte[] m) {
        requireFixed(m, JOIN_NAME_OFFSET + MAC_LENGTH, "JOIN");
        int nameLength = Short.toUnsignedInt(b.getShort(JOIN_NAME_LENGTH_OFFSET));
        int dataLength = Short.toUnsignedInt(b.getShort(JOIN_DATA_LENGTH_OFFSET));
        requireLength(m, JOIN_NAME_OFFSET + MAC_LENGTH, (long) nameLength + dataLength, "JOIN");
        String fabric = fabricName(m, JOIN_NAME_OFFSET, nameLength);
        if (dataLength > JoinFields.MAX_DATA) {
            throw new JoinRefusal(Reason.MALFORMED, "a JOIN with " + dataLength + " bytes of fields, more than " + JoinFields.MAX_DATA);
        }
        int data = JOIN_NAME_OFFSET + nameLength;
        return new Join(Arrays.copyOfRange(m, JOIN_NONCE_OFFSET, JOIN_NONCE_OFFSET + NONCE_LENGTH), fabric,
                new JoinFields(b.getLong(JOIN_ID_OFFSET), Arrays.copyOfRange(m, data, data + dataLength)),
                Arrays.copyOfRange(m, macOffset(m), m.length));
    }

    private static Welcome decodeWelcome(ByteBuffer b, byte[] m) {
        requireFixed(m, WELCOME_DATA_OFFSET + MAC_LENGTH, "WELCOME");
        int dataLength = Short.toUnsignedInt(b.getShort(WELCOME_DATA_LENGTH_OFFSET));
        requireLength(m, WELCOME_DATA_OFFSET + MAC_LENGTH, dataLength, "WELCOME");
        if (b.getShort(WELCOME_RESERVED_OFFSET) != 0) {
            throw new JoinRefusal(Reason.MALFORMED, "a WELCOME with reserved bytes set");
        }
        if (dataLength > JoinFields.MAX_DATA) {
            throw new JoinRefusal(Reason.MALFORMED, "a WELCOME with " + dataLength + " bytes of fields, more than " + JoinFields.MAX_DATA);
        }
        return new Welcome(new JoinFields(b.getLong(WELCOME_ID_OFFSET), Arrays.copyOfRange(m, WELCOME_DATA_OFFSET, WELCOME_DATA_OFFSET + dataLength)),
                Arrays.copyOfRange(m, macOffset(m), m.length));
    }

    private static Refused decodeRefused(ByteBuffer b, byte[] m) {
        requireFixed(m, REFUSED_TEXT_OFFSET, "REFUSED");
        int textLength = Short.toUnsignedInt(b.getShort(REFUSED_TEXT_LENGTH_OFFSET));
        requireLength(m, REFUSED_TEXT_OFFSET, textLength, "REFUSED");
        if (textLength > MAX_TEXT) {
            throw new JoinRefusal(Reason.MALFORMED, "a REFUSED with a text of " + textLength + " bytes, more than " + MAX_TEXT);
        }
        int code = Short.toUnsignedInt(b.getShort(REFUSED_REASON_OFFSET));
        return new Refused(Reason.of(code), code, printable(utf8(m, REFUSED_TEXT_OFFSET, textLength, "REFUSED text")));
    }

    /** The text with control characters replaced: a peer's words go into logs and exception messages. */
    static String printable(String text) {
        StringBuilder s = new StringBuilder(text.length());
        text.chars().forEach(ch -> s.append(Character.isISOControl(ch) ? '?' : (char) ch));
        return s.toString();
    }
}
