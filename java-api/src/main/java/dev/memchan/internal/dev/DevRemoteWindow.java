package dev.memchan.internal.dev;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Remote read and atomics through the driver ({@code MEMCHAN_REMOTE}, docs/driver.md): every operation is
 * one ioctl, served by the driver as the home's adapter serves it (the home's READ_EN / ATOMIC_EN, alignment,
 * REMOTE_REFUSED, page counters). The process gets no mapping of the home's pages, so a page it may only
 * read or run atomics on stays unwritable by it. The argument struct is per thread and reused: no
 * allocation per operation.
 */
final class DevRemoteWindow implements RemoteWindow {
    private static final ThreadLocal<MemorySegment> ARGS = DevBackend.threadArgs(Uapi.memchan_remote.LAYOUT);

    private final int fd;
    private final String location;
    private final int home;
    private final int firstPage;
    private final int count;
    private final long base;
    private final long size;
    private final Consumer<DevRemoteWindow> release;
    private volatile boolean closed;

    private DevRemoteWindow(int fd, String location, int home, int firstPage, int count, int pageSize,
                            Consumer<DevRemoteWindow> release) {
        this.fd = fd;
        this.location = location;
        this.home = home;
        this.firstPage = firstPage;
        this.count = count;
        this.base = (long) firstPage * pageSize;
        this.size = (long) count * pageSize;
        this.release = release;
    }

    /**
     * Refuses, as the home does (counted in its REMOTE_REFUSED), unless every page has READ_EN or ATOMIC_EN
     * at {@code home}: a region not homed where asked.
     */
    static DevRemoteWindow open(int fd, String location, int home, int firstPage, int count, int pageSize,
                                Consumer<DevRemoteWindow> release) {
        DevRemoteWindow w = new DevRemoteWindow(fd, location, home, firstPage, count, pageSize, release);
        try {
            w.op(Uapi.REMOTE_CHECK, w.base, w.size, 0);
        } catch (ErrnoException e) {
            throw w.failure(e, "node " + home + " grants neither remote read nor atomics on every page of "
                    + firstPage + "+" + count + ": it is not the home of these pages, or has not granted them");
        }
        return w;
    }

    private long op(int op, long addr, long operand, long compare) throws ErrnoException {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, location + ": the remote mapping of node " + home + " is closed");
        }
        MemorySegment s = ARGS.get();
        Uapi.memchan_remote.home(s, home);
        Uapi.memchan_remote.op(s, op);
        Uapi.memchan_remote.addr(s, addr);
        Uapi.memchan_remote.operand(s, operand);
        Uapi.memchan_remote.compare(s, compare);
        Uapi.memchan_remote.result(s, 0);
        Posix.ioctl(fd, Uapi.REMOTE, s);
        return Uapi.memchan_remote.result(s);
    }

    private MemchanException failure(ErrnoException e, String refusal) {
        return switch (e.errno()) {
            case Posix.EACCES -> new MemchanException(Kind.PERMISSION, location + ": " + refusal, e);
            case Posix.EOPNOTSUPP -> new MemchanException(Kind.UNSUPPORTED, location + ": remote read and atomics are not supported "
                    + "by this driver backend (MEMCHAN_REMOTE: EOPNOTSUPP; docs/driver.md)", e);
            case Posix.ENXIO -> new MemchanException(Kind.NOT_FOUND, location + ": no node ID", e);
            case 19 -> new MemchanException(Kind.CLOSED, location + ": the device went away", e);
            case 22 -> new MemchanException(Kind.INVALID_ARGUMENT, location + ": " + e.getMessage(), e);
            default -> new MemchanException(Kind.DEVICE_ERROR, location + ": remote operation: " + e.getMessage(), e);
        };
    }

    /** Network address of the word at {@code offset}; bounds are the requester's own check, alignment the home's. */
    private long wordAddress(long offset, String op) {
        if (offset < 0 || offset > size - Long.BYTES) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, op + " at offset " + offset + ": outside the remote mapping of "
                    + size + " bytes");
        }
        return base + offset;
    }

    /** Only when refused: the message is built on the failure path. */
    private String refusal(String op, long offset, String grant) {
        long page = firstPage + offset / (size / count);
        return "node " + home + " refused a remote " + op + " at offset " + offset + " (page " + page + "): "
                + ((offset & (Long.BYTES - 1)) != 0 ? "the word is not 8-byte aligned" : "its receive PCT there is without " + grant);
    }

    private long word(int op, long offset, long operand, long compare, String name, String grant) {
        long addr = wordAddress(offset, name);
        try {
            return op(op, addr, operand, compare);
        } catch (ErrnoException e) {
            throw failure(e, refusal(name, offset, grant));
        }
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

    @Override
    public long getLongAcquire(long offset) {
        return word(Uapi.REMOTE_READ, offset, 0, 0, "read", "READ_EN");
    }

    /**
     * Remote copy (MEMCHAN_REMOTE_COPY) in chunks of at most MEMCHAN_REMOTE_COPY_MAX bytes that end at page
     * boundaries, so the home counts one read per page a copy touches. Each chunk is all or nothing; a page
     * refused part-way leaves {@code dst} filled with the chunks before it. A heap segment is filled word by
     * word (the driver writes native memory only).
     */
    @Override
    public void copyTo(long offset, MemorySegment dst, long dstOffset, long length) {
        if (length < 1 || offset < 0 || offset > size - length) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "remote copy of " + length + " bytes at offset " + offset
                    + ": outside the remote mapping of " + size + " bytes");
        }
        if (dstOffset < 0 || dstOffset > dst.byteSize() - length || dst.isReadOnly()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "remote copy of " + length + " bytes into a "
                    + (dst.isReadOnly() ? "read-only " : "") + "segment of " + dst.byteSize() + " bytes at " + dstOffset);
        }
        if (!dst.isNative()) {
            copyWords(offset, dst, dstOffset, length);
            return;
        }
        long pageSize = size / count;
        long done = 0;
        while (done < length) {
            long at = offset + done;
            long chunk = Math.min(length - done, Uapi.REMOTE_COPY_MAX - (at & (pageSize - 1)));
            try {
                copy(base + at, chunk, dst.address() + dstOffset + done);
            } catch (ErrnoException e) {
                throw failure(e, "node " + home + " refused a remote copy of " + length + " bytes at offset " + offset
                        + ": a page from offset " + at + " on is without READ_EN in its receive PCT there");
            }
            done += chunk;
        }
    }

    private void copy(long addr, long length, long buffer) throws ErrnoException {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, location + ": the remote mapping of node " + home + " is closed");
        }
        MemorySegment s = ARGS.get();
        Uapi.memchan_remote.home(s, home);
        Uapi.memchan_remote.op(s, Uapi.REMOTE_COPY);
        Uapi.memchan_remote.addr(s, addr);
        Uapi.memchan_remote.operand(s, length);
        Uapi.memchan_remote.compare(s, 0);
        Uapi.memchan_remote.result(s, 0);
        Uapi.memchan_remote.buffer(s, buffer);
        try {
            Posix.ioctl(fd, Uapi.REMOTE, s);
        } finally {
            Uapi.memchan_remote.buffer(s, 0); // the other operations need it 0
        }
    }

    /** Into a heap segment: one remote read per word, the bytes of each little-endian word placed. */
    private void copyWords(long offset, MemorySegment dst, long dstOffset, long length) {
        long end = offset + length;
        for (long w = offset & -Long.BYTES; w < end; w += Long.BYTES) {
            long v;
            try {
                v = op(Uapi.REMOTE_READ, base + w, 0, 0);
            } catch (ErrnoException e) {
                throw failure(e, refusal("copy of " + length + " bytes", w, "READ_EN"));
            }
            long from = Math.max(w, offset);
            long to = Math.min(w + Long.BYTES, end);
            for (long b = from; b < to; b++) {
                dst.set(JAVA_BYTE, dstOffset + (b - offset), (byte) (v >>> (8 * (b - w))));
            }
        }
    }

    @Override
    public long getAndAdd(long offset, long delta) {
        return word(Uapi.REMOTE_FETCH_ADD, offset, delta, 0, "fetch-and-add", "ATOMIC_EN");
    }

    @Override
    public long compareAndExchange(long offset, long expected, long value) {
        return word(Uapi.REMOTE_CAS, offset, value, expected, "compare-and-swap", "ATOMIC_EN");
    }

    @Override
    public long getAndSet(long offset, long value) {
        return word(Uapi.REMOTE_SWAP, offset, value, 0, "swap", "ATOMIC_EN");
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            release.accept(this);
        }
    }
}
