package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The messages between the nodes of a {@code ucx://} fabric and its hub, and their byte form: one active
 * message each, little-endian, {@code [kind: 1 byte][seq: 8 bytes][body]}. {@code seq} is the sender's port
 * sequence (node to hub: the hub takes a port's messages in this order, as UCX delivers messages in any
 * order), the host sequence of a host's stream (hub to every port of the host), else 0. A message that does not
 * parse is refused with BAD_FORMAT by {@link #decode}.
 */
public final class HubWire {
    /** The active-message id of messages to the hub. */
    public static final int TO_HUB = 40;
    /** The active-message id of messages to a node. */
    public static final int TO_NODE = 41;
    /** The protocol version a node's join fields carry; the hub refuses any other. */
    public static final int VERSION = 5;
    /** The bytes of the envelope before a body. */
    static final int ENVELOPE = 1 + Long.BYTES;
    /** The largest body of a WRITE's runs a sender puts in one message; a larger push is several. */
    public static final int MAX_WRITE_BYTES = 60_000;

    private HubWire() {
    }

    /** What a message is. Codes are the first byte on the wire. */
    public enum Type {
        HOST_READY, WRITE, NOTIFY, BARRIER, REMOTE, ANSWER, APPLIED, TIME, BYE,
        REFUSED, STREAM_WRITE, STREAM_NOTIFY, STREAM_REMOTE, SEQUENCED, BARRIER_DONE, RESULT, TIME_REPLY, INCARNATION, DECLARE_DEAD;

        private static final Type[] ALL = values();
    }

    /** One decoded message: its type, its envelope sequence and its body. */
    public sealed interface Message {
        /**
         * Node to hub: this process has made its host's fabric ({@code make} false). Hub to node: the host's fabric
         * is ready to open, or ({@code make}) this process makes it, as the process that was to make it is gone.
         */
        record HostReady(boolean make) implements Message {
        }

        /** Stores of a grant with transmit entry {@code entry}: each run is bytes at an offset of the window. */
        record Write(int entry, List<Run> runs) implements Message {
        }

        /**
         * The receive interrupt of {@code page}, after the stores before it; with a {@code dest} (not {@link #NO_DEST}),
         * also a notification with data: {@code payload} from node {@code sender} into {@code dest}'s queue there.
         */
        record Notify(int page, int dest, int sender, long payload) implements Message {
            /** The dest of a notification without data. */
            public static final int NO_DEST = -1;

            /** The receive interrupt alone. */
            Notify(int page) {
                this(page, NO_DEST, NO_DEST, 0);
            }
        }

        /** The acknowledge barrier of request {@code request}. */
        record Barrier(long request) implements Message {
        }

        /** A remote read or atomic at {@code home}; {@code request} is the requester's, or the hub's in a stream. */
        record Remote(long request, int home, int firstPage, int count, RemoteOp op, long offset, long a, long b, int length)
                implements Message {
        }

        /** A host's answer to the hub's remote request {@code request}: 0 ok, else the refusal's kind and message. */
        record Answer(long request, int status, long value, byte[] bytes, String message) implements Message {
        }

        /** This port has applied its host's stream up to {@code hostSeq}. */
        record Applied(long hostSeq) implements Message {
        }

        /** A round trip for the hub's clock. */
        record Time(long request) implements Message {
        }

        /** The port leaves. */
        record Bye() implements Message {
        }

        /** The incarnation of this process's node: its claim in the host's fabric, which the process shares. */
        record Incarnation(long incarnation) implements Message {
        }

        /**
         * Request {@code request}: this node declares node {@code node}'s {@code incarnation} dead; the hub drops that
         * incarnation's ports at once, or refuses when it holds none (answered by {@link Result}). On a dropped port's
         * control connection (request 0): why the hub let it go.
         */
        record DeclareDead(long request, int node, long incarnation) implements Message {
        }

        /** The hub ends the connection: the error's kind and why (a message it does not take from a joined node). */
        record Refused(Kind kind, String message) implements Message {
        }

        /** The hub has sequenced this port's messages up to {@code portSeq}. */
        record Sequenced(long portSeq) implements Message {
        }

        /** The barrier {@code request} is done once the host has applied {@code watermark}; or failed with {@code message}. */
        record BarrierDone(long request, long watermark, String message) implements Message {
        }

        /** The result of remote request {@code request}, valid once the host has applied {@code watermark}. */
        record Result(long request, long watermark, int status, long value, byte[] bytes, String message) implements Message {
        }

        /** The hub's monotonic clock for time request {@code request}. */
        record TimeReply(long request, long hubNanos) implements Message {
        }
    }

    /** The head of a node's join fields' data before its worker address. */
    private static final int NODE_JOIN_HEAD = 28;
    /** The head of a hub's welcome fields' data before its worker address. */
    private static final int HUB_WELCOME_HEAD = 50;
    /** The join fields' id of a standby hub joining its primary: a role no node asks for. */
    public static final long STANDBY_ROLE = -2;

    /**
     * What a node tells the hub in the join handshake's fields ({@link JoinHandshake}): the node ID it asks for
     * (-1: any) as the fields' id; this protocol's version, its host, its pid, its session (a random number of this
     * backend, the same at every hub it joins), whether it resumes that session at a standby that took over, and its
     * UCX worker's address ({@link UcxWorker#address()}, which the hub connects its endpoint to) as their data. The
     * handshake's MACs cover the address: only a holder of the secret names the worker the hub talks to.
     */
    public record NodeJoin(int node, int version, long hostKey, int pid, long session, boolean resume, byte[] worker) {
        public JoinFields toFields() {
            return new JoinFields(node, ByteBuffer.allocate(NODE_JOIN_HEAD + worker.length).order(ByteOrder.LITTLE_ENDIAN).putInt(version)
                    .putLong(hostKey).putInt(pid).putLong(session).putInt(resume ? 1 : 0).put(worker).array());
        }

        /** The node's fields; BAD_FORMAT when they are not a node's join of this protocol. */
        public static NodeJoin of(JoinFields fields) {
            byte[] d = fields.data();
            if (d.length <= NODE_JOIN_HEAD || fields.id() < -1 || fields.id() > Integer.MAX_VALUE) {
                throw bad("a node's join fields of " + d.length + " bytes with node " + fields.id());
            }
            ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt(0) != VERSION) {
                throw bad("a node of hub protocol version " + b.getInt(0) + ", not this hub's " + VERSION);
            }
            return new NodeJoin((int) fields.id(), b.getInt(), b.getLong(), b.getInt(), b.getLong(), b.getInt() != 0,
                    Arrays.copyOfRange(d, NODE_JOIN_HEAD, d.length));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof NodeJoin j && j.node == node && j.version == version && j.hostKey == hostKey && j.pid == pid
                    && j.session == session && j.resume == resume && Arrays.equals(j.worker, worker);
        }

        @Override
        public int hashCode() {
            return Objects.hash(node, version, hostKey, pid, session, resume, Arrays.hashCode(worker));
        }

        @Override
        public String toString() {
            return "NodeJoin[node=" + node + ", version=" + version + ", host=" + Long.toHexString(hostKey) + ", pid=" + pid
                    + ", session=" + Long.toHexString(session) + (resume ? ", resuming" : "") + ", worker address of " + worker.length
                    + " bytes]";
        }
    }

    /**
     * What the hub answers in the handshake's WELCOME: the node ID as the fields' id; the fabric's geometry, the hub's
     * instance, whether this process is the first of its host (it makes the host's fabric), whether the host's
     * fabric is ready (else a {@link Message.HostReady} follows), for a resumed session the last of its former port's
     * messages the hub holds as sequenced (0 otherwise), the incarnation the node's claim must go past (the highest
     * the hub has seen of this node ID on any host, when the node has no process on this host; 0 otherwise), and the
     * hub's UCX worker address (which the node connects its endpoint to) as their data.
     */
    public record HubWelcome(int node, long fabricSize, int pageSize, int maxNodes, long hubId, boolean first, boolean ready,
                             long resumedUpTo, long incarnationFloor, byte[] worker) {
        public JoinFields toFields() {
            return new JoinFields(node, ByteBuffer.allocate(HUB_WELCOME_HEAD + worker.length).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(fabricSize).putInt(pageSize).putInt(maxNodes).putLong(hubId).putInt(first ? 1 : 0).putInt(ready ? 1 : 0)
                    .putShort((short) VERSION).putLong(resumedUpTo).putLong(incarnationFloor).put(worker).array());
        }

        /** The hub's fields; BAD_FORMAT when they are not a hub's welcome of this protocol. */
        public static HubWelcome of(JoinFields fields) {
            byte[] d = fields.data();
            ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
            if (d.length <= HUB_WELCOME_HEAD || fields.id() < 0 || fields.id() > Integer.MAX_VALUE || b.getShort(32) != VERSION) {
                throw bad("a hub's welcome fields of " + d.length + " bytes with node " + fields.id() + " (another protocol version?)");
            }
            return new HubWelcome((int) fields.id(), b.getLong(), b.getInt(), b.getInt(), b.getLong(), b.getInt() != 0, b.getInt() != 0,
                    b.getLong(34), b.getLong(42), Arrays.copyOfRange(d, HUB_WELCOME_HEAD, d.length));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HubWelcome w && w.node == node && w.fabricSize == fabricSize && w.pageSize == pageSize
                    && w.maxNodes == maxNodes && w.hubId == hubId && w.first == first && w.ready == ready && w.resumedUpTo == resumedUpTo
                    && w.incarnationFloor == incarnationFloor && Arrays.equals(w.worker, worker);
        }

        @Override
        public int hashCode() {
            return Objects.hash(node, fabricSize, pageSize, maxNodes, hubId, first, ready, resumedUpTo, incarnationFloor, Arrays.hashCode(worker));
        }

        @Override
        public String toString() {
            return "HubWelcome[node=" + node + ", fabric " + fabricSize + " bytes, page " + pageSize + ", " + maxNodes + " nodes, hub "
                    + Long.toHexString(hubId) + ", first=" + first + ", ready=" + ready + ", resumed up to " + resumedUpTo
                    + ", incarnation floor " + incarnationFloor + ", worker address of " + worker.length + " bytes]";
        }
    }

    /** A standby hub's join fields: the {@link #STANDBY_ROLE} as id, this protocol's version and the standby's pid as data. */
    public record StandbyJoin(int version, int pid) {
        public JoinFields toFields() {
            return new JoinFields(STANDBY_ROLE, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(version).putInt(pid).array());
        }

        /** The standby's fields; BAD_FORMAT when they are not a standby's join of this protocol. */
        public static StandbyJoin of(JoinFields fields) {
            byte[] d = fields.data();
            if (fields.id() != STANDBY_ROLE || d.length != 8) {
                throw bad("a standby's join fields of " + d.length + " bytes with id " + fields.id());
            }
            ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt(0) != VERSION) {
                throw bad("a standby of hub protocol version " + b.getInt(0) + ", not this hub's " + VERSION);
            }
            return new StandbyJoin(b.getInt(), b.getInt());
        }
    }

    /** The primary's WELCOME to its standby: the fabric's geometry and the hub instance the standby continues. */
    public record StandbyWelcome(long fabricSize, int pageSize, int maxNodes, long hubId) {
        public JoinFields toFields() {
            return new JoinFields(0, ByteBuffer.allocate(26).order(ByteOrder.LITTLE_ENDIAN).putLong(fabricSize).putInt(pageSize)
                    .putInt(maxNodes).putLong(hubId).putShort((short) VERSION).array());
        }

        /** The primary's fields; BAD_FORMAT when they are not a primary's welcome to a standby of this protocol. */
        public static StandbyWelcome of(JoinFields fields) {
            byte[] d = fields.data();
            ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
            if (fields.id() != 0 || d.length != 26 || b.getShort(24) != VERSION) {
                throw bad("a primary's welcome to a standby of " + d.length + " bytes with id " + fields.id() + " (another protocol version?)");
            }
            return new StandbyWelcome(b.getLong(), b.getInt(), b.getInt(), b.getLong());
        }
    }

    /** One run of stored bytes at {@code offset} from the window's first page. */
    public record Run(long offset, byte[] bytes) {
    }

    /** The operation of a remote request. */
    public enum RemoteOp {
        READ_LONG, COPY, FETCH_ADD, CAS, SWAP, CHECK;

        private static final RemoteOp[] ALL = values();
    }

    /** A decoded message with its envelope. */
    public record Envelope(Type type, long seq, Message message) {
    }

    /** {@code message} with envelope sequence {@code seq}, as bytes. */
    public static byte[] encode(long seq, Message message) {
        Writer w = new Writer();
        switch (message) {
            case Message.HostReady h -> w.head(Type.HOST_READY, seq).i(h.make() ? 1 : 0);
            case Message.Write x -> writeBody(w.head(Type.WRITE, seq), x);
            case Message.Notify n -> w.head(Type.NOTIFY, seq).i(n.page()).i(n.dest()).i(n.sender()).l(n.payload());
            case Message.Barrier b -> w.head(Type.BARRIER, seq).l(b.request());
            case Message.Remote r -> remoteBody(w.head(Type.REMOTE, seq), r);
            case Message.Answer a -> w.head(Type.ANSWER, seq).l(a.request()).i(a.status()).l(a.value()).bytes(a.bytes()).s(a.message());
            case Message.Applied a -> w.head(Type.APPLIED, seq).l(a.hostSeq());
            case Message.Time t -> w.head(Type.TIME, seq).l(t.request());
            case Message.Bye _ -> w.head(Type.BYE, seq);
            case Message.Refused r -> w.head(Type.REFUSED, seq).i(r.kind().ordinal()).s(r.message());
            case Message.Sequenced s -> w.head(Type.SEQUENCED, seq).l(s.portSeq());
            case Message.BarrierDone b -> w.head(Type.BARRIER_DONE, seq).l(b.request()).l(b.watermark()).s(b.message());
            case Message.Result r -> w.head(Type.RESULT, seq).l(r.request()).l(r.watermark()).i(r.status()).l(r.value())
                    .bytes(r.bytes()).s(r.message());
            case Message.TimeReply t -> w.head(Type.TIME_REPLY, seq).l(t.request()).l(t.hubNanos());
            case Message.Incarnation i -> w.head(Type.INCARNATION, seq).l(i.incarnation());
            case Message.DeclareDead d -> w.head(Type.DECLARE_DEAD, seq).l(d.request()).i(d.node()).l(d.incarnation());
        }
        return w.toArray();
    }

    /** A node's message numbered {@code seq} instead (sent once more, to a standby that takes over the numbering). */
    public static byte[] renumbered(byte[] message, long seq) {
        byte[] copy = message.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putLong(1, seq);
        return copy;
    }

    /** A node's message as the hub forwards it in a host's stream: the same body, a stream type, the host sequence. */
    public static byte[] restamp(byte[] fromNode, Type streamType, long hostSeq) {
        byte[] copy = fromNode.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).put(0, (byte) streamType.ordinal()).putLong(1, hostSeq);
        return copy;
    }

    private static void writeBody(Writer w, Message.Write x) {
        w.i(x.entry()).i(x.runs().size());
        for (Run r : x.runs()) {
            w.l(r.offset()).bytes(r.bytes());
        }
    }

    private static void remoteBody(Writer w, Message.Remote r) {
        w.l(r.request()).i(r.home()).i(r.firstPage()).i(r.count()).i(r.op().ordinal()).l(r.offset()).l(r.a()).l(r.b()).i(r.length());
    }

    /** The message in {@code bytes}; BAD_FORMAT naming what is wrong when it does not parse. */
    public static Envelope decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            int code = Byte.toUnsignedInt(b.get());
            if (code >= Type.ALL.length) {
                throw bad("unknown message type " + code);
            }
            Type type = Type.ALL[code];
            long seq = b.getLong();
            Message m = switch (type) {
                case HOST_READY -> new Message.HostReady(b.getInt() != 0);
                case WRITE, STREAM_WRITE -> readWrite(b);
                case NOTIFY, STREAM_NOTIFY -> new Message.Notify(b.getInt(), b.getInt(), b.getInt(), b.getLong());
                case BARRIER -> new Message.Barrier(b.getLong());
                case REMOTE, STREAM_REMOTE -> new Message.Remote(b.getLong(), b.getInt(), b.getInt(), b.getInt(), remoteOp(b.getInt()),
                        b.getLong(), b.getLong(), b.getLong(), b.getInt());
                case ANSWER -> new Message.Answer(b.getLong(), b.getInt(), b.getLong(), readBytes(b), readString(b));
                case APPLIED -> new Message.Applied(b.getLong());
                case TIME -> new Message.Time(b.getLong());
                case BYE -> new Message.Bye();
                case REFUSED -> new Message.Refused(kind(b.getInt()), readString(b));
                case SEQUENCED -> new Message.Sequenced(b.getLong());
                case BARRIER_DONE -> new Message.BarrierDone(b.getLong(), b.getLong(), readString(b));
                case RESULT -> new Message.Result(b.getLong(), b.getLong(), b.getInt(), b.getLong(), readBytes(b), readString(b));
                case TIME_REPLY -> new Message.TimeReply(b.getLong(), b.getLong());
                case INCARNATION -> new Message.Incarnation(b.getLong());
                case DECLARE_DEAD -> new Message.DeclareDead(b.getLong(), b.getInt(), b.getLong());
            };
            if (b.hasRemaining()) {
                throw bad(type + " with " + b.remaining() + " bytes too many");
            }
            return new Envelope(type, seq, m);
        } catch (BufferUnderflowException e) {
            throw bad("a truncated message of " + bytes.length + " bytes");
        }
    }

    private static Message.Write readWrite(ByteBuffer b) {
        int entry = b.getInt();
        int count = b.getInt();
        if (count < 0 || count > b.remaining() / (Long.BYTES + Integer.BYTES)) {
            throw bad("a write of " + count + " runs in " + b.remaining() + " bytes");
        }
        List<Run> runs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long offset = b.getLong();
            if (offset < 0) {
                throw bad("a run at negative offset " + offset);
            }
            runs.add(new Run(offset, readBytes(b)));
        }
        return new Message.Write(entry, List.copyOf(runs));
    }

    /** A WRITE's run: its window offset, and where its bytes are in the message. */
    interface RunVisitor {
        void run(long offset, byte[] message, int at, int length);
    }

    /**
     * The port or host sequence of {@code bytes}, checked as {@link #decode} checks it (BAD_FORMAT); a WRITE or
     * STREAM_WRITE is checked in place, without building its runs.
     */
    public static long checked(byte[] bytes) {
        if (bytes.length >= ENVELOPE && (bytes[0] == Type.WRITE.ordinal() || bytes[0] == Type.STREAM_WRITE.ordinal())) {
            forEachRun(bytes, null);
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(1);
        }
        return decode(bytes).seq();
    }

    /** The transmit entry of a WRITE or STREAM_WRITE message that {@link #checked} took. */
    static int writeEntry(byte[] message) {
        return ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getInt(ENVELOPE);
    }

    /**
     * Gives {@code visitor} (when not null) every run of a WRITE or STREAM_WRITE message in order, in place: nothing
     * allocated per run. BAD_FORMAT, before any run is given, when the runs do not parse as {@link #decode} parses them.
     */
    static void forEachRun(byte[] message, RunVisitor visitor) {
        ByteBuffer b = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
        try {
            b.position(ENVELOPE + Integer.BYTES);
            int count = b.getInt();
            if (count < 0 || count > b.remaining() / (Long.BYTES + Integer.BYTES)) {
                throw bad("a write of " + count + " runs in " + b.remaining() + " bytes");
            }
            int first = b.position();
            for (int pass = 0; pass < (visitor == null ? 1 : 2); pass++) {
                b.position(first);
                for (int i = 0; i < count; i++) {
                    long offset = b.getLong();
                    int length = b.getInt();
                    if (offset < 0 || length < 0 || length > b.remaining()) {
                        throw bad("a run of " + length + " bytes at offset " + offset + " with " + b.remaining() + " bytes left");
                    }
                    if (pass == 1) {
                        visitor.run(offset, message, b.position(), length);
                    }
                    b.position(b.position() + length);
                }
                if (b.hasRemaining()) {
                    throw bad("a write with " + b.remaining() + " bytes too many");
                }
            }
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw bad("a truncated write of " + message.length + " bytes");
        }
    }

    private static RemoteOp remoteOp(int code) {
        if (code < 0 || code >= RemoteOp.ALL.length) {
            throw bad("unknown remote operation " + code);
        }
        return RemoteOp.ALL[code];
    }

    private static Kind kind(int code) {
        Kind[] kinds = Kind.values();
        if (code < 0 || code >= kinds.length) {
            throw bad("unknown error kind " + code);
        }
        return kinds[code];
    }

    private static byte[] readBytes(ByteBuffer b) {
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw bad("a field of " + length + " bytes with " + b.remaining() + " left");
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        return bytes;
    }

    private static String readString(ByteBuffer b) {
        return new String(readBytes(b), StandardCharsets.UTF_8);
    }

    private static MemchanException bad(String what) {
        return new MemchanException(Kind.BAD_FORMAT, "hub protocol: " + what);
    }

    /** A growing little-endian byte buffer. */
    private static final class Writer {
        private ByteBuffer buffer = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);

        private Writer room(int bytes) {
            if (buffer.remaining() < bytes) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes)).order(ByteOrder.LITTLE_ENDIAN);
                bigger.put(buffer.flip());
                buffer = bigger;
            }
            return this;
        }

        Writer head(Type type, long seq) {
            room(ENVELOPE).buffer.put((byte) type.ordinal()).putLong(seq);
            return this;
        }

        Writer i(int v) {
            room(Integer.BYTES).buffer.putInt(v);
            return this;
        }

        Writer l(long v) {
            room(Long.BYTES).buffer.putLong(v);
            return this;
        }

        Writer bytes(byte[] v) {
            room(Integer.BYTES + v.length).buffer.putInt(v.length).put(v);
            return this;
        }

        Writer s(String v) {
            return bytes(v.getBytes(StandardCharsets.UTF_8));
        }

        byte[] toArray() {
            byte[] out = new byte[buffer.position()];
            buffer.flip().get(out);
            return out;
        }
    }
}
