package dev.memchan.internal.soft;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdminProvider;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.internal.nativeio.NativeAccess;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code shm:NAME}: the soft fabric file /dev/shm/memchan-NAME (docs/soft-fabric.md), joined as a backend,
 * viewed by an administrator ({@link SoftFabricAdmin}), created and removed.
 */
public final class SoftBackendProvider implements BackendProvider, AdminProvider {
    @Override
    public String scheme() {
        return "shm";
    }

    @Override
    public Backend open(Location location, int nodeId) {
        return open(location, nodeId == FabricOptions.ANY_NODE ? FabricOptions.defaults().withCreate(false)
                : FabricOptions.defaults().withCreate(false).withNodeId(nodeId));
    }

    /** Joins the file, creating it first when {@link FabricOptions#create()} is set and it is missing. */
    @Override
    public Backend open(Location location, FabricOptions options) {
        Path path = SoftFabricFile.pathOf(location.path());
        if (options.create() && !Files.exists(path)) {
            try {
                create(path, options);
            } catch (MemchanException e) {
                if (e.kind() != Kind.IN_USE) { // another process created it first: join theirs
                    throw e;
                }
            }
        }
        return SoftFabricBackend.join(location.toString(), path, options.nodeId(), options.heartbeatPeriod(), options.failureTimeout());
    }

    @Override
    public SoftFabricView view(Location location) {
        return SoftFabricAdmin.open(location);
    }

    @Override
    public void create(Location location, FabricOptions options) {
        NativeAccess.require();
        create(SoftFabricFile.pathOf(location.path()), options);
    }

    private static void create(Path path, FabricOptions options) {
        SoftFabricFile.create(path, options.fabricSize(), options.pageSize(), options.maxNodes(), options.group());
    }

    @Override
    public void remove(Location location) {
        NativeAccess.require();
        SoftFabricFile.remove(SoftFabricFile.pathOf(location.path()));
    }
}
