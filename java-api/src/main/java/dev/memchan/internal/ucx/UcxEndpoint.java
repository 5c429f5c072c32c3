package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.Ucp;
import dev.memchan.internal.nativeio.UcpDefs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A connection to one peer (ucp_ep), made by {@link UcxWorker#connect} or accepted by a
 * {@link UcxListener}: remote memory access on 64-bit words and byte ranges, active messages, flush.
 *
 * <p>Every operation here is blocking in the form the package documentation states: it returns when its
 * request completed, progressing the worker in the calling thread meanwhile. {@code put} completes locally
 * (the source may be reused); the data is at the target after {@link #flush()}. {@code get} and the
 * atomics complete at the target. {@code send} completes locally. Nothing orders two puts or two messages
 * except {@link #flush()} and {@link UcxWorker#fence()}.
 *
 * <p>Thread-safe: any thread may issue operations concurrently (the worker runs in
 * {@code UCS_THREAD_MODE_MULTI}; each thread uses its own preallocated parameters). Not from inside an
 * {@link AmHandler}: hand such work to {@link UcxWorker#execute}. Local segments must be native memory
 * (UCX reads and writes them after the call returns to Java); they need not be registered.
 *
 * <p>Once the peer failed ({@link UcxEvent.PeerFailed}), operations throw {@link MemchanException}
 * ({@code DEVICE_ERROR}); after {@link #close()} they throw {@code CLOSED}. Close only once no other thread
 * uses the endpoint.
 */
public final class UcxEndpoint implements AutoCloseable {
    final UcxWorker worker;
    final MemorySegment handle;
    final int serial;
    private final String peer;
    private final List<UcxRemoteMemory> remotes = new ArrayList<>();
    /** UCS_OK until UCX's error handler reported the peer failed. */
    private volatile int failure = UcpDefs.UCS_OK;
    private volatile boolean closed;
    /** False while {@link UcxWorker#connect} waits for the connection: its failure is connect's exception, not an event. */
    volatile boolean connected;

    UcxEndpoint(UcxWorker worker, MemorySegment handle, int serial, String peer, boolean connected) {
        this.worker = worker;
        this.handle = handle;
        this.serial = serial;
        this.peer = peer;
        this.connected = connected;
    }

    /** The peer's address as it was given or as the listener saw it. */
    public String peer() {
        return peer;
    }

    /** Whether UCX reported the peer failed. */
    public boolean failed() {
        return failure != UcpDefs.UCS_OK;
    }

    /** Records UCX's error handler call; true the first time. */
    boolean markFailed(int status) {
        synchronized (this) {
            if (failure != UcpDefs.UCS_OK) {
                return false;
            }
            failure = status;
            return true;
        }
    }

    private void requireUsable(String what) {
        if (closed) {
            throw new MemchanException(MemchanException.Kind.CLOSED, what + ": the endpoint to " + peer + " is closed");
        }
        int f = failure;
        if (f != UcpDefs.UCS_OK) {
            throw new MemchanException(MemchanException.Kind.DEVICE_ERROR, what + ": the peer " + peer + " failed ("
                    + Ucp.statusString(f) + ")");
        }
        worker.requireBlockingAllowed(what);
    }

    private static void requireNative(MemorySegment s, String what) {
        if (!s.isNative()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + ": a native segment is needed (UCX uses it "
                    + "after the call), not " + s);
        }
    }

    private UcxRemoteMemory target(UcxRemoteMemory remote, String what) {
        if (remote.endpoint != this) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + ": the remote memory was opened on the "
                    + "endpoint to " + remote.endpoint.peer() + ", not on this one to " + peer);
        }
        return remote;
    }

    /**
     * Opens a peer's {@link UcxMemory#descriptor()} on this endpoint. A descriptor that is not one (wrong
     * magic, truncated, inconsistent lengths) or a key UCX refuses throws {@code INVALID_ARGUMENT}.
     */
    public UcxRemoteMemory remote(byte[] descriptor) {
        requireUsable("opening remote memory");
        long base;
        long length;
        byte[] key;
        try {
            ByteBuffer b = ByteBuffer.wrap(descriptor);
            if (b.getInt() != UcxMemory.MAGIC) {
                throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "not a UCX memory descriptor (magic)");
            }
            base = b.getLong();
            length = b.getLong();
            int keyLength = b.getInt();
            if (length <= 0 || keyLength <= 0 || keyLength != b.remaining()) {
                throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "a UCX memory descriptor of "
                        + descriptor.length + " bytes with length " + length + " and a key of " + keyLength + " bytes");
            }
            key = new byte[keyLength];
            b.get(key);
        } catch (BufferUnderflowException e) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "a truncated UCX memory descriptor ("
                    + descriptor.length + " bytes)", e);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packed = arena.allocateFrom(JAVA_BYTE, key);
            MemorySegment rkeyOut = arena.allocate(ADDRESS);
            Ucp.check(Ucp.epRkeyUnpack(handle, packed, rkeyOut), "unpacking the remote key of " + peer);
            UcxRemoteMemory remote = new UcxRemoteMemory(this, rkeyOut.get(ADDRESS, 0), base, length);
            synchronized (remotes) {
                remotes.add(remote);
            }
            return remote;
        }
    }

    void release(UcxRemoteMemory remote) {
        synchronized (remotes) {
            if (remotes.remove(remote)) {
                remote.destroy();
            }
        }
    }

    /** Writes {@code source} at {@code offset} of the peer's memory; returns when {@code source} may be reused. */
    public void put(MemorySegment source, UcxRemoteMemory target, long offset) {
        requireUsable("put");
        requireNative(source, "put");
        long address = target(target, "put").address(offset, source.byteSize(), 1, "put");
        worker.await(Ucp.putNbx(handle, source, source.byteSize(), address, target.rkey, Scratch.get().plain()), "put", this);
    }

    /** Writes a 64-bit word (native byte order) at {@code offset} of the peer's memory. */
    public void putLong(UcxRemoteMemory target, long offset, long value) {
        requireUsable("putLong");
        long address = target(target, "putLong").address(offset, 8, 1, "putLong");
        Scratch s = Scratch.get();
        s.word.set(JAVA_LONG, 0, value);
        worker.await(Ucp.putNbx(handle, s.word, 8, address, target.rkey, s.plain()), "putLong", this);
    }

    /** Reads {@code destination.byteSize()} bytes at {@code offset} of the peer's memory into {@code destination}. */
    public void get(UcxRemoteMemory source, long offset, MemorySegment destination) {
        requireUsable("get");
        requireNative(destination, "get");
        if (destination.isReadOnly()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "get: the destination segment is read-only");
        }
        long address = target(source, "get").address(offset, destination.byteSize(), 1, "get");
        worker.await(Ucp.getNbx(handle, destination, destination.byteSize(), address, source.rkey, Scratch.get().plain()), "get", this);
    }

    /** Reads the 64-bit word at {@code offset} of the peer's memory. */
    public long getLong(UcxRemoteMemory source, long offset) {
        requireUsable("getLong");
        long address = target(source, "getLong").address(offset, 8, 1, "getLong");
        Scratch s = Scratch.get();
        worker.await(Ucp.getNbx(handle, s.reply, 8, address, source.rkey, s.plain()), "getLong", this);
        return s.reply.get(JAVA_LONG, 0);
    }

    /** Atomically adds {@code delta} to the 64-bit word at {@code offset} (8-aligned) at the peer; returns its previous value. */
    public long fetchAdd(UcxRemoteMemory target, long offset, long delta) {
        return atomic(UcpDefs.UCP_ATOMIC_OP_ADD, target, offset, delta, 0, "fetchAdd");
    }

    /**
     * Atomically replaces the 64-bit word at {@code offset} by {@code desired} if it equals
     * {@code expected}; returns the value it had (equal to {@code expected} exactly when it was replaced).
     */
    public long compareAndSwap(UcxRemoteMemory target, long offset, long expected, long desired) {
        // UCP's CSWAP: the buffer holds the value compared, the reply buffer the one swapped in (then the result)
        return atomic(UcpDefs.UCP_ATOMIC_OP_CSWAP, target, offset, expected, desired, "compareAndSwap");
    }

    /** Atomically replaces the 64-bit word at {@code offset} by {@code value}; returns the value it had. */
    public long swap(UcxRemoteMemory target, long offset, long value) {
        return atomic(UcpDefs.UCP_ATOMIC_OP_SWAP, target, offset, value, 0, "swap");
    }

    /** {@code operand} in the buffer, {@code replyIn} in the reply buffer (read by CSWAP only); returns the reply. */
    private long atomic(int opcode, UcxRemoteMemory target, long offset, long operand, long replyIn, String what) {
        requireUsable(what);
        long address = target(target, what).address(offset, 8, 8, what);
        Scratch s = Scratch.get();
        s.word.set(JAVA_LONG, 0, operand);
        s.reply.set(JAVA_LONG, 0, replyIn);
        worker.await(Ucp.atomicOpNbx(handle, opcode, s.word, 1, address, target.rkey, s.atomic()), what, this);
        return s.reply.get(JAVA_LONG, 0);
    }

    /** Returns when every put and atomic this endpoint issued before the call is complete at the peer (ucp_ep_flush_nbx). */
    public void flush() {
        requireUsable("flush");
        worker.await(Ucp.epFlushNbx(handle, Scratch.get().plain()), "flush", this);
    }

    /**
     * Sends active message {@code id} (0 to {@link UcxWorker#MAX_AM_ID}) with {@code header} (at most the
     * worker's {@link UcxWorker#maxHeader()} bytes) and {@code payload}, both native; returns when both may
     * be reused. Eager protocol only, so that the receiver's handler always sees the whole message; the
     * receiver may reply on the endpoint its handler is given.
     */
    public void send(int id, MemorySegment header, MemorySegment payload) {
        requireNative(header, "send");
        if (header.byteSize() > worker.maxHeader()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "send: a header of " + header.byteSize()
                    + " bytes, more than UCX's " + worker.maxHeader());
        }
        send(id, header, payload, payload.byteSize());
    }

    /**
     * {@link #send(int, MemorySegment, MemorySegment)} with no header and the first {@code length} bytes of {@code payload}
     * (a reused buffer): nothing allocated.
     */
    public void send(int id, MemorySegment payload, long length) {
        send(id, MemorySegment.NULL, payload, length);
    }

    private void send(int id, MemorySegment header, MemorySegment payload, long length) {
        requireUsable("send");
        UcxWorker.checkAmId(id);
        requireNative(payload, "send");
        if (length < 0 || length > payload.byteSize()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "send: " + length + " bytes of a payload of "
                    + payload.byteSize());
        }
        MemorySegment param = Scratch.get().flags(UcpDefs.UCP_AM_SEND_FLAG_EAGER | UcpDefs.UCP_AM_SEND_FLAG_REPLY);
        worker.await(Ucp.amSendNbx(handle, id, header, header.byteSize(), payload, length, param), "send", this);
    }

    /** Closes the connection (force-closed when the peer failed) and its remote memory; idempotent. */
    @Override
    public void close() {
        close(failed());
    }

    /** Closes; {@code force} does not wait for the peer's acknowledgement. */
    void close(boolean force) {
        worker.requireOutsideHandler("close");
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        synchronized (remotes) {
            for (UcxRemoteMemory r : remotes) {
                r.destroy();
            }
            remotes.clear();
        }
        worker.closeEndpoint(this, force);
    }

    boolean closed() {
        return closed;
    }

    @Override
    public String toString() {
        return "UcxEndpoint[" + peer + (closed ? ", closed" : failed() ? ", failed" : "") + "]";
    }
}
