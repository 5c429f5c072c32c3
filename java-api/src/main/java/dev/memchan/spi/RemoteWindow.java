package dev.memchan.spi;

import java.lang.foreign.MemorySegment;

/**
 * Network pages homed at another node (or this one), reached by remote read and remote atomics: every
 * operation is served by the home, which checks its receive PCT (READ_EN for reads, ATOMIC_EN for
 * atomics), counts the access in the page's counters and refuses, counting REMOTE_REFUSED, what it
 * does not grant. Offsets are bytes from the window's first page. Every operation validates its
 * input first and throws {@link dev.memchan.MemchanException} without effect on bad input.
 */
public interface RemoteWindow extends AutoCloseable {
    int home();

    int firstPage();

    int pageCount();

    /** A remote load of the aligned 64-bit word at {@code offset}, with acquire semantics. */
    long getLongAcquire(long offset);

    /** Remote copy: {@code length} bytes from {@code offset} into {@code dst} at {@code dstOffset}. */
    void copyTo(long offset, MemorySegment dst, long dstOffset, long length);

    /** Remote fetch-and-add on an aligned word; returns the old value. Full fence semantics. */
    long getAndAdd(long offset, long delta);

    /** Remote compare-and-swap on an aligned word; returns the old value. Full fence semantics. */
    long compareAndExchange(long offset, long expected, long value);

    /** Remote swap (fetch-and-store) on an aligned word; returns the old value. Full fence semantics. */
    long getAndSet(long offset, long value);

    /**
     * The aligned word at {@code offset}, for many atomics on it. A bad offset is refused as an atomic at it is
     * (here, or by this default at the word's first atomic), with nothing else changed.
     */
    default RemoteWord word(long offset) {
        return new RemoteWord.InWindow(this, offset);
    }

    @Override
    void close();
}
