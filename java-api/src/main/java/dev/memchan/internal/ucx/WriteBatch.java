package dev.memchan.internal.ucx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A WRITE message built in place in native memory, in {@link HubWire}'s byte form ({@code [WRITE][seq][entry][runs]
 * [offset, length, bytes]...}): pushes append their runs, {@link #seal} stamps the port sequence, and the segment is
 * what UCX sends; after the send it is reused for another message. A run that starts where the previous one ends
 * extends it (the same stores in the same order, one run header less).
 */
final class WriteBatch {
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Envelope, entry and run count. */
    private static final int HEAD = HubWire.ENVELOPE + 2 * Integer.BYTES;
    /** A run's offset and length. */
    static final int RUN_HEAD = Long.BYTES + Integer.BYTES;
    /** The largest message: one run of {@link HubWire#MAX_WRITE_BYTES} always fits an empty batch. */
    static final int CAPACITY = HEAD + RUN_HEAD + HubWire.MAX_WRITE_BYTES;
    /**
     * The largest message pushes are combined into: a barrier after many stores waits for the hub to sequence and every
     * host to apply what is queued and in flight, a few of these.
     */
    static final int COMBINED = 16 << 10;

    private final MemorySegment segment;
    private int entry;
    private int runs;
    private int size;
    /** Where the last run's length field is, and the window offset just past its bytes. */
    private int lastLengthAt;
    private long lastEnd;

    WriteBatch(Arena arena) {
        this.segment = arena.allocate(CAPACITY, Long.BYTES);
    }

    /** Starts an empty message of transmit entry {@code entry}. */
    void start(int entry) {
        this.entry = entry;
        runs = 0;
        size = HEAD;
        lastEnd = -1;
        segment.set(JAVA_BYTE, 0, (byte) HubWire.Type.WRITE.ordinal());
        segment.set(INT_LE, HubWire.ENVELOPE, entry);
    }

    int entry() {
        return entry;
    }

    boolean isEmpty() {
        return runs == 0;
    }

    /**
     * The bytes of a run of {@code length} bytes at window offset {@code at} this message takes: an empty one as many as
     * fit, one with runs all of it if the message stays within {@link #COMBINED} bytes, else none.
     */
    int room(long at, long length) {
        long head = at == lastEnd ? 0 : RUN_HEAD;
        if (runs == 0) {
            return (int) Math.min(length, CAPACITY - size - head);
        }
        return size + head + length <= COMBINED ? (int) length : 0;
    }

    /** Appends {@code length} bytes of {@code source} from {@code from} as stores at window offset {@code at}; they must fit. */
    void append(long at, MemorySegment source, long from, int length) {
        if (at == lastEnd) {
            segment.set(INT_LE, lastLengthAt, segment.get(INT_LE, lastLengthAt) + length);
        } else {
            segment.set(LONG_LE, size, at);
            lastLengthAt = size + Long.BYTES;
            segment.set(INT_LE, lastLengthAt, length);
            size += RUN_HEAD;
            runs++;
        }
        MemorySegment.copy(source, from, segment, size, length);
        size += length;
        lastEnd = at + length;
    }

    /** Stamps port sequence {@code seq} and the run count; the message is {@link #segment()}'s first {@link #size()} bytes. */
    void seal(long seq) {
        segment.set(LONG_LE, 1, seq);
        segment.set(INT_LE, HubWire.ENVELOPE + Integer.BYTES, runs);
    }

    MemorySegment segment() {
        return segment;
    }

    int size() {
        return size;
    }
}
