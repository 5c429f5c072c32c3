package dev.memchan.spi;

/**
 * Opens a {@link Backend} for a location scheme other than {@code shm:} (found with ServiceLoader),
 * e.g. {@code dev:} for the kernel driver's /dev/memchanN.
 */
public interface BackendProvider {
    /** The scheme before the colon, e.g. "dev". */
    String scheme();

    /** Opens the adapter at {@code path} (the part after the colon). {@code nodeId} -1 means the adapter's own. */
    Backend open(String path, int nodeId);
}
