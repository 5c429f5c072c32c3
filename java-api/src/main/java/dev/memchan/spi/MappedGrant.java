package dev.memchan.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * A grant whose pages are one mmap bound to {@code arena}: what every backend hands out. Closing it
 * calls the backend's release (which unmaps through the arena and withdraws the PCT entries).
 */
public final class MappedGrant implements Backend.Grant {
    private final int firstPage;
    private final int count;
    private final boolean transmit;
    private final boolean writeCombining;
    private final Arena arena;
    private final MemorySegment segment;
    private final Consumer<MappedGrant> release;

    public MappedGrant(int firstPage, int count, boolean transmit, boolean writeCombining, Arena arena, MemorySegment segment,
                       Consumer<MappedGrant> release) {
        this.firstPage = firstPage;
        this.count = count;
        this.transmit = transmit;
        this.writeCombining = writeCombining;
        this.arena = arena;
        this.segment = segment;
        this.release = release;
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
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public boolean writeCombining() {
        return writeCombining;
    }

    /** A transmit grant (else receive). */
    public boolean transmit() {
        return transmit;
    }

    /** The arena the mapping is bound to; closing it unmaps. */
    public Arena arena() {
        return arena;
    }

    @Override
    public void close() {
        release.accept(this);
    }
}
