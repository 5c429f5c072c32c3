package dev.memchan;

import dev.memchan.spi.Backend;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A transmit mapping: stores into {@link #segment()} travel to the region's destinations.
 *
 * <p>Ordering, as on the hardware: stores from one thread reach every destination in program order
 * only where the memory orders them. The transmit window of a board is write-combining memory,
 * where x86-TSO does <em>not</em> order stores, so anything a receiver uses as a flag must be stored
 * after a {@link #fence()} (or with {@link #putLongRelease}, which fences first). {@link Fabric#ackBarrier()}
 * additionally waits until the stores have arrived. Never load from a transmit mapping: on a board,
 * reads of the transmit window return nothing useful; read your local copy through an
 * {@link IncomingMapping} instead.
 *
 * <p>The fence is what x86's SFENCE is, for the memory type of this mapping: on write-combining
 * memory a locked instruction ({@code VarHandle.fullFence()}: Java has no SFENCE, and a locked
 * instruction drains the write-combining buffers too); on write-back memory (the soft fabric), where
 * TSO already delivers stores in program order and SFENCE would order nothing, a compiler-level
 * release fence. The backend says which memory a grant is ({@link dev.memchan.spi.Backend.Grant#writeCombining()}),
 * and says write-combining when in doubt.
 *
 * <p>On a network backend ({@code ucx:}) the segment is this process's shadow of the transmit pages
 * ({@link dev.memchan.spi.Backend.Grant#shadowed()}), and a store reaches the network at a publishing
 * point, as a write-combined store reaches it when the buffer drains: {@link #putLongRelease} and
 * {@link #putLongVolatile} send their own word (and the release everything before it); {@link #fence()},
 * {@link #notifyReceivers()}, {@link Fabric#ackBarrier()} and a lock's release send every word that differs
 * from what the mapping last sent. Plain stores with no publishing point after them are not sent, and a
 * plain store that leaves a word as it was last sent sends nothing.
 */
public final class OutgoingMapping implements AutoCloseable {
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final Region region;
    private final Backend.Grant grant;
    private final MemorySegment segment;
    private final Route route;
    private final Backend backend;
    private final boolean writeCombining;
    private final boolean shadowed;

    OutgoingMapping(Region region, Backend.Grant grant, Route route) {
        this.region = region;
        this.grant = grant;
        this.segment = grant.segment();
        this.route = route;
        this.backend = region.fabric().context().backend();
        this.writeCombining = grant.writeCombining();
        this.shadowed = grant.shadowed();
    }

    /** Whether this mapping is write-combining memory (see the class comment). */
    public boolean writeCombining() {
        return writeCombining;
    }

    /** The mapped transmit pages: stores only. */
    public MemorySegment segment() {
        return segment;
    }

    public Route route() {
        return route;
    }

    public Region region() {
        return region;
    }

    /** A plain store: may be combined and reordered with other plain stores until a {@link #fence()}. */
    public void putLong(long offset, long value) {
        segment.set(JAVA_LONG, offset, value);
    }

    /**
     * Store fence, then the store: every earlier store (plain, bulk copy, write-combined) reaches every
     * destination before this one. The flag/sequence store of the message-channel idiom.
     */
    public void putLongRelease(long offset, long value) {
        fence();
        LONG.setRelease(segment, offset, value);
        if (shadowed) {
            grant.push(offset, Long.BYTES);
        }
    }

    /**
     * {@link #putLongRelease} for the library's own writers that pushed their earlier stores themselves
     * ({@link #push}): on a shadowed grant only this word is sent, with no diff of the whole mapping; elsewhere
     * exactly {@link #putLongRelease}.
     */
    void putLongReleaseAfterPushes(long offset, long value) {
        if (shadowed) {
            LONG.setRelease(segment, offset, value);
            grant.push(offset, Long.BYTES);
        } else {
            putLongRelease(offset, value);
        }
    }

    /**
     * Sends bytes {@code offset .. offset + length - 1} as they are now, after everything pushed before, where the
     * grant is a shadow; a no-op elsewhere, and for an empty range. For the library's own writers, which know what
     * they stored.
     */
    void push(long offset, long length) {
        if (shadowed && length > 0) {
            grant.push(offset, length);
        }
    }

    /** The grant beneath, for the library's own writers that push their stores themselves (a lock's bids). */
    Backend.Grant grant() {
        return grant;
    }

    /**
     * The store, then a full fence: the store is pushed out now instead of waiting in a store or
     * write-combining buffer. For a lone flag or value that a peer is polling for (ping-pong).
     */
    public void putLongVolatile(long offset, long value) {
        LONG.setVolatile(segment, offset, value);
        if (shadowed) {
            grant.push(offset, Long.BYTES);
        }
    }

    /**
     * Store fence: every earlier store to this mapping reaches every destination before every later one.
     * On write-combining memory a locked instruction, which drains the write-combining buffers
     * (VarHandle.releaseFence would only constrain the compiler there); on write-back memory, where
     * x86-TSO keeps stores in order, a release fence.
     */
    public void fence() {
        if (shadowed) {
            VarHandle.releaseFence();
            grant.pushChanges();
        } else if (writeCombining) {
            VarHandle.fullFence();
        } else {
            VarHandle.releaseFence();
        }
    }

    /**
     * Wakes the receivers that attached with {@code notify} (the adapter's interrupt on receive), after sending
     * what this mapping changed where it is a shadow.
     */
    public void notifyReceivers() {
        if (shadowed) {
            grant.pushChanges();
        }
        backend.raiseNotify(grant.firstPage());
    }

    /** First network page of this mapping. */
    public int firstPage() {
        return grant.firstPage();
    }

    @Override
    public void close() {
        grant.close();
        region.mappingClosed(this, Region.TX);
    }
}
