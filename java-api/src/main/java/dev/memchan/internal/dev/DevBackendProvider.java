package dev.memchan.internal.dev;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.AdminProvider;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.util.function.Function;

/**
 * {@code dev:/dev/memchanN}: the kernel driver's device (native/, docs/driver.md); {@code dev:/dev/memchan*}:
 * the first of this machine's adapters free to join ({@link AdapterGlob}). An administrator views one adapter
 * ({@link DevAdapterView}); the driver makes the devices, so there is nothing to create or remove.
 */
public final class DevBackendProvider implements BackendProvider, AdminProvider {
    @Override
    public String scheme() {
        return "dev";
    }

    @Override
    public Backend open(Location location, int nodeId) {
        return DevBackend.open(location.path(), nodeId);
    }

    @Override
    public <T> T join(Location location, FabricOptions options, Function<Backend, T> member) {
        return AdapterGlob.matches(location) ? AdapterGlob.join(location, options, member)
                : BackendProvider.super.join(location, options, member);
    }

    @Override
    public AdapterView view(Location location) {
        return DevAdapterView.open(location);
    }

    @Override
    public void create(Location location, FabricOptions options) {
        throw nothingToMake(location);
    }

    @Override
    public void remove(Location location) {
        throw nothingToMake(location);
    }

    private static MemchanException nothingToMake(Location location) {
        return new MemchanException(Kind.UNSUPPORTED, location + " is a device of the kernel driver, which makes and removes "
                + "its adapters (docs/driver.md); only a soft fabric (shm:NAME) is created and removed");
    }
}
