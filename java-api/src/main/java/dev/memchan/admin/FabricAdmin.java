package dev.memchan.admin;

import dev.memchan.FabricOptions;
import dev.memchan.spi.Location;

/**
 * A fabric location administered without joining it (mcctl, tests, benches): its adapters' view, and the
 * creation and removal of a soft fabric's file. Each call parses the location once and asks its scheme's
 * {@link AdminProvider}; a bad location is refused with INVALID_ARGUMENT naming it, nothing changed.
 */
public final class FabricAdmin {
    private FabricAdmin() {
    }

    /** The view of {@code location}'s adapters, claiming no node ({@code shm:NAME}, {@code dev:/dev/memchanN}). */
    public static AdapterView view(String location) {
        Location parsed = Location.parse(location);
        return provider(parsed).view(parsed);
    }

    /**
     * Creates the fabric at {@code location} with the geometry and group of {@code options}, without joining it
     * (a soft fabric's file /dev/shm/memchan-NAME, mode 0660); refuses one that exists (IN_USE). A device is the
     * driver's to make: UNSUPPORTED.
     */
    public static void create(String location, FabricOptions options) {
        Location parsed = Location.parse(location);
        provider(parsed).create(parsed, options);
    }

    /** Removes the fabric at {@code location} (a soft fabric's file); processes that joined keep their mapping. */
    public static void remove(String location) {
        Location parsed = Location.parse(location);
        provider(parsed).remove(parsed);
    }

    static AdminProvider provider(Location location) {
        return location.provider(AdminProvider.class, AdminProvider::scheme);
    }
}
