package dev.memchan.admin;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.Location;

import java.nio.file.Path;

/**
 * The administration of one location scheme's fabrics, found with ServiceLoader beside its
 * {@link dev.memchan.spi.BackendProvider}: an {@link AdapterView} that claims no node, and the creation and
 * removal of what a location names where that is a file (the soft fabric), and the hub of a scheme whose fabrics
 * have one. Used through {@link FabricAdmin} and {@link Hub}.
 */
public interface AdminProvider {
    /** The scheme before the colon, e.g. "shm". */
    String scheme();

    /** Opens the view of {@code location} (of this provider's scheme). */
    AdapterView view(Location location);

    /** Creates the fabric at {@code location} without joining it; refuses one that exists. */
    void create(Location location, FabricOptions options);

    /** Removes the fabric at {@code location}. */
    void remove(Location location);

    /** Starts the hub of {@code location} in this process ({@link Hub#start}); a scheme without hubs refuses. */
    default Hub startHub(Location location, Path secretFile, long fabricSize, int pageSize, int maxNodes) {
        throw noHub(location);
    }

    /** Starts the standby of the hub at {@code primary} in this process ({@link Hub#standby}); a scheme without hubs refuses. */
    default Hub startStandby(Location location, Path secretFile, String primary) {
        throw noHub(location);
    }

    /** Writes a new join secret to {@code file} ({@link Hub#createSecret}); a scheme without hubs refuses. */
    default void createSecret(Path file) {
        throw new MemchanException(Kind.UNSUPPORTED, scheme() + ": fabrics of this scheme have no join secret");
    }

    private static MemchanException noHub(Location location) {
        return new MemchanException(Kind.INVALID_ARGUMENT, "a hub serves a ucx://HOST:PORT/NAME fabric, not '" + location + "'");
    }
}
