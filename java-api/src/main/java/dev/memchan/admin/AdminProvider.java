package dev.memchan.admin;

import dev.memchan.FabricOptions;
import dev.memchan.spi.Location;

/**
 * The administration of one location scheme's fabrics, found with ServiceLoader beside its
 * {@link dev.memchan.spi.BackendProvider}: an {@link AdapterView} that claims no node, and the creation and
 * removal of what a location names where that is a file (the soft fabric). Used through {@link FabricAdmin}.
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
}
