package dev.memchan.spi;

import dev.memchan.FabricOptions;

/**
 * Opens a {@link Backend} for one location scheme, found with ServiceLoader: {@code shm:} for the
 * soft fabric, {@code dev:} for the kernel driver's /dev/memchanN. Opening a location is one lookup of
 * its scheme.
 */
public interface BackendProvider {
    /** The scheme before the colon, e.g. "dev". */
    String scheme();

    /** Opens the adapter at {@code path} (the part after the colon). {@code nodeId} -1 means the adapter's own. */
    Backend open(String path, int nodeId);

    /**
     * Opens {@code path} with the whole of {@code options} (a soft fabric may be created, and judges a
     * stale node with the failure timeout); by default {@link #open(String, int)} with the node ID.
     */
    default Backend open(String path, FabricOptions options) {
        return open(path, options.nodeId());
    }
}
