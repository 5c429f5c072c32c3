package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.Backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A transmit grant of a network backend: {@link #segment()} is this process's private shadow of the pages,
 * and a twin holds what this grant last sent. {@link #push} sends a range as it is; {@link #pushChanges} sends
 * the runs of 8-byte words where shadow and twin differ. What is sent is a snapshot of the shadow taken once
 * into the twin, and the sender copies it from there: a store racing with the push is either in the snapshot
 * (sent) or differs from the twin (sent by the next push), never lost. A push allocates nothing.
 *
 * <p>The grant of the host's fabric ({@code pctGrant}) holds the transmit PCT entry; its writable mapping is
 * never handed out. Sends go through {@link Sender}, after everything this grant sent before (one lock).
 */
final class ShadowGrant implements Backend.Grant {
    /** Unchanged words between two changed ones up to which a run goes on (one message header costs about this). */
    static final int JOIN_GAP = 64;

    /** Where a grant's pushes go: in order, as the stores of transmit entry {@code entry}. */
    interface Sender {
        /**
         * Takes {@code length} bytes of {@code snapshot} from {@code from} as stores at window offset {@code at}, after
         * everything taken before; the bytes are copied before it returns.
         */
        void append(int entry, long at, MemorySegment snapshot, long from, long length);

        /** The push's runs are all appended: they go out now, or combined with later ones while the hub is behind. */
        void pushed();
    }

    /** One run of changed words at {@code [start, end)} of the shadow, already copied into the twin. */
    interface RunSink {
        void run(long start, long end);
    }

    private final Backend.Grant pctGrant;
    private final int entry;
    private final long windowOffset;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment shadow;
    private final MemorySegment twin;
    private final Sender sender;
    private final Runnable onClose;
    /** {@link #pushChanges}' sink, made once: a push allocates nothing. */
    private final RunSink appendRun = this::appendRun;
    private boolean closed;

    /**
     * A shadow of {@code pctGrant}'s pages starting as {@code initial} (the pages as this host has them: shadow
     * and twin equal, so only later stores are sent); {@code windowOffset} is the first page's byte offset in the
     * window.
     */
    ShadowGrant(Backend.Grant pctGrant, int entry, long windowOffset, MemorySegment initial, Sender sender, Runnable onClose) {
        this.pctGrant = pctGrant;
        this.entry = entry;
        this.windowOffset = windowOffset;
        this.sender = sender;
        this.onClose = onClose;
        this.shadow = arena.allocate(initial.byteSize(), 4096);
        this.twin = arena.allocate(initial.byteSize(), Long.BYTES);
        shadow.copyFrom(initial);
        twin.copyFrom(initial);
    }

    @Override
    public int firstPage() {
        return pctGrant.firstPage();
    }

    @Override
    public int pageCount() {
        return pctGrant.pageCount();
    }

    @Override
    public MemorySegment segment() {
        return shadow;
    }

    /** Stores are ordered by their push, not by the memory type: no write-combining to drain. */
    @Override
    public boolean writeCombining() {
        return false;
    }

    @Override
    public boolean shadowed() {
        return true;
    }

    int entry() {
        return entry;
    }

    @Override
    public synchronized void push(long offset, long length) {
        ensureOpen();
        if (offset < 0 || length < 0 || offset + length > shadow.byteSize() || offset + length < 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "push of " + length + " bytes at offset " + offset
                    + ": outside the grant of " + shadow.byteSize() + " bytes");
        }
        if (length == 0) {
            return;
        }
        MemorySegment.copy(shadow, offset, twin, offset, length);
        sender.append(entry, windowOffset + offset, twin, offset, length);
        sender.pushed();
    }

    @Override
    public synchronized void pushChanges() {
        ensureOpen();
        if (changedRuns(shadow, twin, appendRun)) {
            sender.pushed();
        }
    }

    private void appendRun(long start, long end) {
        sender.append(entry, windowOffset + start, twin, start, end - start);
    }

    /**
     * Gives {@code sink} the runs of 8-byte words where {@code shadow} and {@code twin} (equal sizes, multiples of 8)
     * differ, in ascending order, joined across fewer than {@link #JOIN_GAP} unchanged bytes, each after its
     * snapshot is copied from the shadow into the twin; whether there was one.
     */
    static boolean changedRuns(MemorySegment shadow, MemorySegment twin, RunSink sink) {
        boolean any = false;
        long size = shadow.byteSize();
        long pos = 0;
        while (pos < size) {
            long m = MemorySegment.mismatch(shadow, pos, size, twin, pos, size);
            if (m < 0) {
                break;
            }
            long start = (pos + m) & ~(Long.BYTES - 1L);
            long end = start + Long.BYTES;
            for (long w = end; w < size && w - end < JOIN_GAP; w += Long.BYTES) {
                if (shadow.get(JAVA_LONG, w) != twin.get(JAVA_LONG, w)) {
                    end = w + Long.BYTES;
                }
            }
            MemorySegment.copy(shadow, start, twin, start, end - start);
            sink.run(start, end);
            any = true;
            pos = end;
        }
        return any;
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, "transmit grant of pages " + firstPage() + "+" + pageCount() + " is closed");
        }
    }

    /** Whether {@link #close()} has run. */
    synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        onClose.run();
        pctGrant.close();
        arena.close();
    }
}
