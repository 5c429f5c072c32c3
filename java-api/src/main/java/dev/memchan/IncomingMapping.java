package dev.memchan;

import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A receive mapping: loads from {@link #segment()} read this node's copy of the region's pages. The
 * segment is read-only (mapped without write permission: a store through another view faults).
 *
 * <p>Poll a flag with {@link #getLongAcquire}: once it shows a sender's value, every store that sender
 * made before the flag (single-sender rule) is visible to plain loads that follow.
 */
public final class IncomingMapping implements AutoCloseable {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final Region region;
    private final Backend.Grant grant;
    private final MemorySegment segment;

    IncomingMapping(Region region, Backend.Grant grant) {
        this.region = region;
        this.grant = grant;
        this.segment = grant.segment();
    }

    /** The mapped receive pages, read-only. */
    public MemorySegment segment() {
        return segment;
    }

    public Region region() {
        return region;
    }

    public long getLong(long offset) {
        return segment.get(JAVA_LONG, offset);
    }

    /** A load that later loads cannot pass: the flag read of the message-channel idiom. */
    public long getLongAcquire(long offset) {
        return (long) LONG.getAcquire(segment, offset);
    }

    /** A load that is never cached in a register: for polling. */
    public long getLongVolatile(long offset) {
        return (long) LONG.getVolatile(segment, offset);
    }

    /** First network page of this mapping. */
    public int firstPage() {
        return grant.firstPage();
    }

    @Override
    public void close() {
        grant.close();
        region.mappingClosed(this, Region.RX);
    }
}
