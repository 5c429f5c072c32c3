package dev.memchan.spi;

import dev.memchan.FabricOptions;

import java.util.function.Function;

/**
 * Opens a {@link Backend} for one location scheme, found with ServiceLoader: {@code shm:} for the
 * soft fabric, {@code dev:} for the kernel driver's /dev/memchanN. Opening a location is one lookup of
 * its scheme ({@link #of}); everything a scheme's locations mean (a file, a device, several devices
 * to choose from) is its provider's.
 */
public interface BackendProvider {
    /** The scheme before the colon, e.g. "dev". */
    String scheme();

    /** Opens the adapter at {@code location} (of this provider's scheme). {@code nodeId} -1 means the adapter's own. */
    Backend open(Location location, int nodeId);

    /**
     * Opens {@code location} with the whole of {@code options} (a soft fabric may be created, and judges a
     * stale node with the failure timeout); by default {@link #open(Location, int)} with the node ID.
     */
    default Backend open(Location location, FabricOptions options) {
        return open(location, options.nodeId());
    }

    /**
     * Opens {@code location} and hands the backend to {@code member} (the cluster join), returning what it
     * returns. When {@code member} throws, the backend is closed (by this method, not by {@code member}) and
     * the exception passed on. A provider whose location names several adapters ({@code dev:/dev/memchan*})
     * chooses one here, and tries the next when {@code member} refuses one as IN_USE.
     */
    default <T> T join(Location location, FabricOptions options, Function<Backend, T> member) {
        Backend backend = open(location, options);
        try {
            return member.apply(backend);
        } catch (RuntimeException | Error e) {
            backend.close();
            throw e;
        }
    }

    /** The provider of {@code location}'s scheme; INVALID_ARGUMENT naming the location when there is none. */
    static BackendProvider of(Location location) {
        return location.provider(BackendProvider.class, BackendProvider::scheme);
    }
}
