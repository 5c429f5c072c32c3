package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.ucx.HubWire.RemoteOp;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.MemorySegment;

/**
 * Remote read and atomics of a {@code ucx://} node: each operation is a request through the hub, sequenced after
 * this node's earlier stores, served at the home's host by its soft fabric (the home's grant checked, the access
 * counted, a refusal counted in REMOTE_REFUSED), answered through the hub. Bounds are checked here; alignment
 * and grants at the home, as on the soft fabric.
 */
final class UcxRemoteWindow implements RemoteWindow {
    private final UcxBackend backend;
    private final int home;
    private final int firstPage;
    private final int count;
    private final long size;
    private volatile boolean closed;

    UcxRemoteWindow(UcxBackend backend, int home, int firstPage, int count, long size) {
        this.backend = backend;
        this.home = home;
        this.firstPage = firstPage;
        this.count = count;
        this.size = size;
    }

    @Override
    public int home() {
        return home;
    }

    @Override
    public int firstPage() {
        return firstPage;
    }

    @Override
    public int pageCount() {
        return count;
    }

    private void checkWord(long offset, String op) {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "remote mapping of node " + home + " is closed");
        }
        if (offset < 0 || offset > size - Long.BYTES) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, op + " at offset " + offset + ": outside the remote mapping of " + size + " bytes");
        }
    }

    private long word(RemoteOp op, long offset, long a, long b) {
        checkWord(offset, op.name());
        return backend.remote(home, firstPage, count, op, offset, a, b, 0, null);
    }

    @Override
    public long getLongAcquire(long offset) {
        return word(RemoteOp.READ_LONG, offset, 0, 0);
    }

    @Override
    public void copyTo(long offset, MemorySegment dst, long dstOffset, long length) {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "remote mapping of node " + home + " is closed");
        }
        if (offset < 0 || length < 0 || offset + length > size || dstOffset < 0 || dstOffset + length > dst.byteSize()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "remote copy of " + length + " bytes from offset " + offset
                    + " into " + dst.byteSize() + " bytes at " + dstOffset + ": outside the remote mapping of " + size
                    + " bytes or the destination");
        }
        for (long done = 0; done < length; done += HubWire.MAX_WRITE_BYTES) {
            int part = (int) Math.min(HubWire.MAX_WRITE_BYTES, length - done);
            backend.remote(home, firstPage, count, RemoteOp.COPY, offset + done, 0, 0, part, dst.asSlice(dstOffset + done, part));
        }
    }

    @Override
    public long getAndAdd(long offset, long delta) {
        return word(RemoteOp.FETCH_ADD, offset, delta, 0);
    }

    @Override
    public long compareAndExchange(long offset, long expected, long value) {
        return word(RemoteOp.CAS, offset, expected, value);
    }

    @Override
    public long getAndSet(long offset, long value) {
        return word(RemoteOp.SWAP, offset, value, 0);
    }

    @Override
    public void close() {
        closed = true;
        backend.forget(this);
    }
}
