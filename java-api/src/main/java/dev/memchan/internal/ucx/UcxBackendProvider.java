package dev.memchan.internal.ucx;

import dev.memchan.FabricOptions;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

/**
 * {@code ucx://HOST:PORT/NAME}: a fabric across hosts over UCX, sequenced by the hub at HOST:PORT
 * ({@link UcxHub}, run as {@link UcxHubMain}); the geometry is the hub's, so the options' geometry and
 * {@code create} do not apply.
 */
public final class UcxBackendProvider implements BackendProvider {
    @Override
    public String scheme() {
        return "ucx";
    }

    @Override
    public Backend open(Location location, int nodeId) {
        return open(location, nodeId == FabricOptions.ANY_NODE ? FabricOptions.defaults() : FabricOptions.defaults().withNodeId(nodeId));
    }

    @Override
    public Backend open(Location location, FabricOptions options) {
        return UcxBackend.join(UcxLocation.parse(location), options);
    }
}
