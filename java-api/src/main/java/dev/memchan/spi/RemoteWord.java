package dev.memchan.spi;

/**
 * One aligned 64-bit word of a {@link RemoteWindow}, for many atomics on the same word (a CAS lock's word):
 * its offset is checked once, when the word is taken; every atomic is still served as the window's own
 * (the home's grant checked at the time, the access counted, a refusal counted and thrown).
 */
public interface RemoteWord {
    /** Remote compare-and-swap on the word; returns the old value. Full fence semantics. */
    long compareAndExchange(long expected, long value);

    /** The word of {@code window} at {@code offset} through the window's own compare-and-swap: a backend's default. */
    record InWindow(RemoteWindow window, long offset) implements RemoteWord {
        @Override
        public long compareAndExchange(long expected, long value) {
            return window.compareAndExchange(offset, expected, value);
        }
    }
}
