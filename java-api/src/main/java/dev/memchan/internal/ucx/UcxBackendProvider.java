package dev.memchan.internal.ucx;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.AdminProvider;
import dev.memchan.admin.Hub;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.nio.file.Path;

/**
 * {@code ucx://HOST:PORT/NAME}: a fabric across hosts over UCX, sequenced by the hub at HOST:PORT
 * ({@link UcxHub}, run as {@link UcxHubMain} or {@link Hub} (started here: {@link #startHub})); the geometry is the hub's, so the
 * options' geometry and {@code create} do not apply. Its administrator's view is this host's copy ({@link UcxHostView}).
 */
public final class UcxBackendProvider implements BackendProvider, AdminProvider {
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

    @Override
    public AdapterView view(Location location) {
        return UcxHostView.open(UcxLocation.parse(location));
    }

    @Override
    public void create(Location location, FabricOptions options) {
        throw new MemchanException(Kind.UNSUPPORTED, "a ucx:// fabric is its hub's: start it with 'mcctl hub " + location + " --secret FILE'");
    }

    @Override
    public void remove(Location location) {
        throw new MemchanException(Kind.UNSUPPORTED, "a ucx:// fabric is its hub's: it ends when the hub stops");
    }

    @Override
    public Hub startHub(Location location, Path secretFile, long fabricSize, int pageSize, int maxNodes) {
        return UcxHubHandle.start(location, secretFile, fabricSize, pageSize, maxNodes);
    }

    @Override
    public Hub startStandby(Location location, Path secretFile, String primary) {
        return UcxHubHandle.standby(location, secretFile, primary);
    }

    @Override
    public void createSecret(Path file) {
        JoinSecret.create(file);
    }
}
