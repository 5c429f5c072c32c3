package dev.memchan.internal.cluster;

import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The cluster service's ordered stores into a transmit grant. Where the grant is a shadow of the pages
 * ({@link Backend.Grant#shadowed()}) each store is pushed as it is made, exactly the bytes stored, so the
 * others see the stores in program order, a zero included (a diff would send nothing for a word whose twin of
 * what was sent already holds 0). Elsewhere a store is only the store: {@code shadowed} is false and final.
 */
public final class TransmitStores {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final Backend.Grant grant;
    private final Backend backend;
    private final boolean shadowed;

    /** The stores of {@code grant}, one of {@code backend}'s transmit grants. */
    public TransmitStores(Backend backend, Backend.Grant grant) {
        this.segment = grant.segment();
        this.grant = grant;
        this.backend = backend;
        this.shadowed = grant.shadowed();
    }

    /**
     * Stores into {@code pages} themselves, which have nothing to push: memory the others read as it is
     * (a soft fabric's file, a heap segment standing for the pages in a test of the codec or the lock).
     */
    public TransmitStores(MemorySegment pages) {
        this.segment = pages;
        this.grant = null;
        this.backend = null;
        this.shadowed = false;
    }

    /** The pages: for reads of the caller's own earlier stores only, never of the others'. */
    public MemorySegment segment() {
        return segment;
    }

    /** Whether stores are pushed (the grant is a shadow). */
    public boolean shadowed() {
        return shadowed;
    }

    public void setLongVolatile(long offset, long value) {
        LONG.setVolatile(segment, offset, value);
        push(offset, Long.BYTES);
    }

    public void setLongRelease(long offset, long value) {
        LONG.setRelease(segment, offset, value);
        push(offset, Long.BYTES);
    }

    public void setIntVolatile(long offset, int value) {
        INT.setVolatile(segment, offset, value);
        push(offset, Integer.BYTES);
    }

    /** Zeroes {@code length} bytes from {@code offset} and pushes them as a range. */
    public void zero(long offset, long length) {
        segment.asSlice(offset, length).fill((byte) 0);
        push(offset, length);
    }

    /** Sends bytes {@code offset .. offset + length - 1} as they are now, after every earlier push of the grant. */
    public void push(long offset, long length) {
        if (shadowed) {
            grant.push(offset, length);
        }
    }

    /**
     * Before a lock's release: sends what every transmit grant of the process changed (the protected stores
     * may be in any of them). A no-op where grants are not shadows.
     */
    public void pushAllGrants() {
        if (shadowed) {
            backend.pushAllGrants();
        }
    }
}
