package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;

/**
 * A join refused ({@link JoinHandshake}): by the hub, by the node, or by the codec before either looked
 * further. The {@link Reason} travels in a REFUSED message ({@link JoinMessages}) and keys the hub's
 * {@link JoinCounters}. Messages name the peer and what was wrong, never the secret or a MAC.
 */
public final class JoinRefusal extends MemchanException {
    private static final long serialVersionUID = 1L;

    /** Why a join was refused; {@code code} is its number on the wire. */
    public enum Reason {
        /** A REFUSED message with a code this version does not know (a newer peer's). */
        UNKNOWN(0, Kind.BAD_FORMAT),
        /** Shorter than its header or its own length fields say. */
        TRUNCATED(1, Kind.BAD_FORMAT),
        /** Longer than any handshake message ({@link JoinMessages#MAX_LENGTH}). */
        OVERSIZED(2, Kind.BAD_FORMAT),
        /** Not a memchan join message (the magic). */
        BAD_MAGIC(3, Kind.BAD_FORMAT),
        /** A peer of another protocol version. */
        VERSION(4, Kind.BAD_FORMAT),
        /** The layout is broken: reserved bytes set, lengths that disagree, a name that is not UTF-8, an empty frame. */
        MALFORMED(5, Kind.BAD_FORMAT),
        /** A message the handshake does not expect at this step. */
        UNEXPECTED(6, Kind.BAD_FORMAT),
        /** The peer asks for another fabric name. */
        WRONG_FABRIC(7, Kind.NOT_FOUND),
        /** The MAC does not match: the peer does not hold this fabric's secret, or the message was changed or replayed. */
        BAD_MAC(8, Kind.PERMISSION),
        /** Authenticated, but the hub's admission refused the node's fields (its node ID taken, say). */
        NOT_ADMITTED(9, Kind.IN_USE),
        /** The handshake did not finish within its time. */
        TIMEOUT(10, Kind.TIMEOUT),
        /** The hub has too many handshakes in progress. */
        BUSY(11, Kind.IN_USE),
        /** The connection failed or closed before the handshake finished. */
        DISCONNECTED(12, Kind.DEVICE_ERROR);

        private final int code;
        private final Kind kind;

        Reason(int code, Kind kind) {
            this.code = code;
            this.kind = kind;
        }

        /** Its number in a REFUSED message. */
        public int code() {
            return code;
        }

        /** The reason of wire code {@code code}; {@link #UNKNOWN} for a code this version does not have. */
        public static Reason of(int code) {
            for (Reason r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            return UNKNOWN;
        }
    }

    private final Reason reason;
    private final boolean byPeer;

    /** A refusal decided on this side. */
    public JoinRefusal(Reason reason, String message) {
        this(reason, message, false);
    }

    /** {@code byPeer}: the other side decided it and said so in a REFUSED message. */
    JoinRefusal(Reason reason, String message, boolean byPeer) {
        super(reason.kind, message);
        this.reason = reason;
        this.byPeer = byPeer;
    }

    public Reason reason() {
        return reason;
    }

    /** Whether the peer refused (its REFUSED arrived) rather than this side. */
    public boolean byPeer() {
        return byPeer;
    }
}
