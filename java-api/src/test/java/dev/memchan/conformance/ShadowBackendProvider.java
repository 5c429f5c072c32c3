package dev.memchan.conformance;

import dev.memchan.FabricOptions;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

/**
 * {@code shadow+shm:NAME}, the test suite's network-like backend: the soft fabric {@code shm:NAME} underneath,
 * whose transmit grants this process sees as shadows ({@link ShadowBackend}). Registered by the test classes'
 * {@code META-INF/services}, so the suite and its node processes (class path) find it; the library does not.
 */
public final class ShadowBackendProvider implements BackendProvider {
    /** The scheme: a shadow over the soft fabric's {@code shm:}. */
    public static final String SCHEME = "shadow+shm";

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Backend open(Location location, int nodeId) {
        Location soft = soft(location);
        return new ShadowBackend(location.toString(), BackendProvider.of(soft).open(soft, nodeId));
    }

    @Override
    public Backend open(Location location, FabricOptions options) {
        Location soft = soft(location);
        return new ShadowBackend(location.toString(), BackendProvider.of(soft).open(soft, options));
    }

    /** The soft fabric underneath: {@code shm:} of the same path. */
    private static Location soft(Location shadow) {
        return new Location("shm", shadow.path());
    }
}
