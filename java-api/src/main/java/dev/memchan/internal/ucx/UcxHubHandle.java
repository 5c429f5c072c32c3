package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.Hub;
import dev.memchan.spi.Location;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A {@link Hub} of the admin surface: a {@link UcxHub} (a primary or a standby) run in this process. */
final class UcxHubHandle implements Hub {
    private final UcxHub hub;
    private final String location;

    private UcxHubHandle(UcxHub hub, String location) {
        this.hub = hub;
        this.location = location;
    }

    /**
     * Starts the hub of {@code location} ({@code ucx://HOST:PORT/NAME}) for a fabric of {@code fabricSize} bytes, {@code pageSize}-byte pages and {@code maxNodes}
     * nodes, admitting the nodes holding the secret in {@code secretFile}. INVALID_ARGUMENT for another location or
     * a bad geometry, PERMISSION or BAD_FORMAT for a secret file that is refused, DEVICE_ERROR when it cannot listen.
     */
    static Hub start(Location location, Path secretFile, long fabricSize, int pageSize, int maxNodes) {
        UcxLocation at = oneHub(location);
        JoinSecret secret = JoinSecret.load(secretFile);
        InetSocketAddress address = at.hubAddress();
        UcxHub hub = new UcxHub(address, at.name(), secret, fabricSize, pageSize, maxNodes, UcxBackend.transportSettings(address));
        return new UcxHubHandle(hub, "ucx://" + hostPort(hub.address()) + "/" + at.name());
    }

    /**
     * Starts the standby of the hub at {@code primary} (HOST:PORT), listening at {@code location}'s HOST:PORT: it
     * joins the primary with the secret in {@code secretFile}, keeps its state, and takes over when the primary is
     * gone (docs/ucx.md, "The standby"). Its {@link #location()} names both hubs, as nodes join them. INVALID_ARGUMENT
     * for a bad location or address (or the primary's own), the primary's refusal as its join throws it (PERMISSION
     * for another secret; a standby of a standby, or a second standby), DEVICE_ERROR when no hub answers there.
     */
    static Hub standby(Location location, Path secretFile, String primary) {
        UcxLocation at = oneHub(location);
        JoinSecret secret = JoinSecret.load(secretFile);
        InetSocketAddress address = at.hubAddress();
        InetSocketAddress primaryAddress = UcxHubMain.listenAddress(primary);
        UcxHub hub = UcxHub.standby(address, at.name(), secret, primaryAddress, UcxBackend.transportSettings(address));
        return new UcxHubHandle(hub, "ucx://" + hostPort(primaryAddress) + "," + hostPort(hub.address()) + "/" + at.name());
    }

    private static UcxLocation oneHub(Location location) {
        UcxLocation at = UcxLocation.parse(location);
        if (at.standbyHost() != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a hub listens at one address: ucx://HOST:PORT/NAME, not '" + location
                    + "' (a standby: its own address, and --standby-of the hub's)");
        }
        return at;
    }

    private static String hostPort(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    @Override
    public InetSocketAddress address() {
        return hub.address();
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public Counts counts(Duration timeout) {
        UcxHub.Census census = hub.census(timeout);
        JoinCounters joins = hub.joins();
        Map<String, Long> by = new LinkedHashMap<>();
        joins.refusals().forEach((reason, n) -> by.put(reason.name(), n));
        return new Counts(joins.admitted(), joins.refusedTotal(), by, census.hosts(), census.processes(), census.nodes());
    }

    @Override
    public void close() {
        hub.close();
    }
}
