package dev.memchan.internal.dev;

import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;

/** {@code dev:/dev/memchanN}: the kernel driver's device (native/, docs/driver.md). */
public final class DevBackendProvider implements BackendProvider {
    @Override
    public String scheme() {
        return "dev";
    }

    @Override
    public Backend open(String path, int nodeId) {
        return DevBackend.open(path, nodeId);
    }
}
