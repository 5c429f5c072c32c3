package dev.memchan.internal.dev;

import dev.memchan.FabricOptions;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.util.function.Function;

/**
 * {@code dev:/dev/memchanN}: the kernel driver's device (native/, docs/driver.md); {@code dev:/dev/memchan*}:
 * the first of this machine's adapters free to join ({@link AdapterGlob}).
 */
public final class DevBackendProvider implements BackendProvider {
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
}
