package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.Ucp;

import java.lang.foreign.MemorySegment;

/**
 * A peer's registered memory as seen through one endpoint: the remote key unpacked on that endpoint,
 * the remote address and length. Every access is checked against that range before anything is sent:
 * an access outside it throws {@link MemchanException} ({@code INVALID_ARGUMENT}) and reaches nothing.
 *
 * <p>Made by {@link UcxEndpoint#remote(byte[])}; usable from any thread; closed with its endpoint, or
 * before it by {@link #close()}.
 */
public final class UcxRemoteMemory implements AutoCloseable {
    final UcxEndpoint endpoint;
    final MemorySegment rkey;
    private final long base;
    private final long length;
    private volatile boolean closed;

    UcxRemoteMemory(UcxEndpoint endpoint, MemorySegment rkey, long base, long length) {
        this.endpoint = endpoint;
        this.rkey = rkey;
        this.base = base;
        this.length = length;
    }

    /** Bytes the peer registered. */
    public long length() {
        return length;
    }

    /**
     * The remote address of {@code size} bytes at {@code offset}, after the range check; {@code align}
     * is the alignment the operation needs (1, or 8 for an atomic).
     */
    long address(long offset, long size, long align, String what) {
        if (closed) {
            throw new MemchanException(MemchanException.Kind.CLOSED, what + ": the remote memory of " + endpoint.peer() + " is closed");
        }
        if (offset < 0 || size < 0 || offset > length - size) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + ": " + size + " bytes at offset " + offset
                    + " are outside the " + length + " bytes " + endpoint.peer() + " registered");
        }
        if ((base + offset) % align != 0) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + ": offset " + offset
                    + " is not aligned to " + align + " bytes at the peer");
        }
        return base + offset;
    }

    @Override
    public void close() {
        endpoint.release(this);
    }

    /** Destroys the key (the endpoint's lock held, see {@link UcxEndpoint#release}). */
    void destroy() {
        if (!closed) {
            closed = true;
            Ucp.rkeyDestroy(rkey);
        }
    }
}
