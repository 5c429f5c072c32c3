package dev.memchan;

/**
 * What a region's home grants other nodes on the pages it receives ({@link Region#attachReceive(boolean,
 * RemoteAccess...)}): the receive PCT attributes READ_EN, ATOMIC_EN and COUNT_IRQ. Independent of who
 * may write the pages: a page can be remotely readable without being writable, and the reverse.
 */
public enum RemoteAccess {
    /** Other nodes may read the pages ({@link RemoteMapping#getLongAcquire}, {@link RemoteMapping#fetch}). */
    READ,
    /** Other nodes may run fetch-and-add, compare-and-swap and swap on the pages' aligned 64-bit words. */
    ATOMIC,
    /** A page's read or atomic counter reaching the threshold notifies the home ({@link Fabric#awaitHotPage}). */
    COUNT_NOTIFY
}
