package dev.memchan.internal.ucx;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Accepts connections on one address ({@link UcxWorker#listen}): bound to exactly that address, never to
 * a wildcard the caller did not give. Each accepted connection becomes an endpoint, reported as
 * {@link UcxEvent.Accepted} on the worker's progress thread. Thread-safe; {@link #close()} stops accepting
 * (endpoints already accepted stay open).
 */
public final class UcxListener implements AutoCloseable {
    final UcxWorker worker;
    final MemorySegment handle;
    final int serial;
    private final InetSocketAddress address;
    private volatile boolean closed;

    UcxListener(UcxWorker worker, MemorySegment handle, int serial, InetSocketAddress address) {
        this.worker = worker;
        this.handle = handle;
        this.serial = serial;
        this.address = address;
    }

    /** The address it listens on, as UCX reports it (the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return address;
    }

    boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        worker.requireOutsideHandler("close");
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        worker.closeListener(this);
    }

    @Override
    public String toString() {
        return "UcxListener[" + address + (closed ? ", closed" : "") + "]";
    }
}
