package dev.memchan.admin;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.ucx.JoinCounters;
import dev.memchan.internal.ucx.JoinSecret;
import dev.memchan.internal.ucx.UcxBackend;
import dev.memchan.internal.ucx.UcxHub;
import dev.memchan.internal.ucx.UcxHubMain;
import dev.memchan.internal.ucx.UcxLocation;
import dev.memchan.layout.Regs;
import dev.memchan.spi.Location;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hub of a {@code ucx://HOST:PORT/NAME} fabric (the sequencer every node of the fabric joins through,
 * docs/ucx.md), run in this process: it listens at HOST:PORT only and admits the nodes that prove they hold the
 * fabric's secret. {@link #createSecret} makes such a secret file.
 */
public final class Hub implements AutoCloseable {
    private final UcxHub hub;
    private final String location;

    /** What a hub has served: admissions and refusals since it started, hosts, processes and nodes now. */
    public record Counts(long admitted, long refused, Map<String, Long> refusedBy, int hosts, int processes, int nodes) {
        public Counts {
            refusedBy = Map.copyOf(refusedBy);
        }
    }

    private Hub(UcxHub hub, String location) {
        this.hub = hub;
        this.location = location;
    }

    /**
     * Starts the hub of {@code location} ({@code ucx://HOST:PORT/NAME}) for a fabric of {@code fabricSize} bytes, {@code pageSize}-byte pages and {@code maxNodes}
     * nodes, admitting the nodes holding the secret in {@code secretFile}. INVALID_ARGUMENT for another location or
     * a bad geometry, PERMISSION or BAD_FORMAT for a secret file that is refused, DEVICE_ERROR when it cannot listen.
     */
    public static Hub start(String location, Path secretFile, long fabricSize, int pageSize, int maxNodes) {
        UcxLocation at = oneHub(location);
        JoinSecret secret = JoinSecret.load(secretFile);
        InetSocketAddress address = at.hubAddress();
        UcxHub hub = new UcxHub(address, at.name(), secret, fabricSize, pageSize, maxNodes, UcxBackend.transportSettings(address));
        return new Hub(hub, "ucx://" + hostPort(hub.address()) + "/" + at.name());
    }

    /**
     * Starts the standby of the hub at {@code primary} (HOST:PORT), listening at {@code location}'s HOST:PORT: it
     * joins the primary with the secret in {@code secretFile}, keeps its state, and takes over when the primary is
     * gone (docs/ucx.md, "The standby"). Its {@link #location()} names both hubs, as nodes join them. INVALID_ARGUMENT
     * for a bad location or address (or the primary's own), the primary's refusal as its join throws it (PERMISSION
     * for another secret; a standby of a standby, or a second standby), DEVICE_ERROR when no hub answers there.
     */
    public static Hub standby(String location, Path secretFile, String primary) {
        UcxLocation at = oneHub(location);
        JoinSecret secret = JoinSecret.load(secretFile);
        InetSocketAddress address = at.hubAddress();
        InetSocketAddress primaryAddress = UcxHubMain.listenAddress(primary);
        UcxHub hub = UcxHub.standby(address, at.name(), secret, primaryAddress, UcxBackend.transportSettings(address));
        return new Hub(hub, "ucx://" + hostPort(primaryAddress) + "," + hostPort(hub.address()) + "/" + at.name());
    }

    private static UcxLocation oneHub(String location) {
        Location parsed = Location.parse(location);
        if (!parsed.scheme().equals("ucx")) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a hub serves a ucx://HOST:PORT/NAME fabric, not '" + location + "'");
        }
        UcxLocation at = UcxLocation.parse(parsed);
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

    /** {@link #start(String, Path, long, int, int)} with the soft fabric's default geometry. */
    public static Hub start(String location, Path secretFile) {
        return start(location, secretFile, Regs.SF_DEFAULT_FILE_SIZE, Regs.SF_DEFAULT_PAGE_SIZE, Regs.SF_DEFAULT_MAX_NODES);
    }

    /**
     * Writes a new random secret to {@code file}, created with mode 0600 (refused IN_USE when it exists): hand it
     * to the hub and to every node of the fabric (system property {@code memchan.ucx.secret} or environment
     * {@code MEMCHAN_UCX_SECRET}).
     */
    public static void createSecret(Path file) {
        JoinSecret.create(file);
    }

    /** The address the hub listens at. */
    public InetSocketAddress address() {
        return hub.address();
    }

    /** The location nodes join, with the port the hub listens at. */
    public String location() {
        return location;
    }

    /** The hub's counts, read on its thread (TIMEOUT when that thread does not answer within {@code timeout}). */
    public Counts counts(Duration timeout) {
        UcxHub.Census census = hub.census(timeout);
        JoinCounters joins = hub.joins();
        Map<String, Long> by = new LinkedHashMap<>();
        joins.refusals().forEach((reason, n) -> by.put(reason.name(), n));
        return new Counts(joins.admitted(), joins.refusedTotal(), by, census.hosts(), census.processes(), census.nodes());
    }

    /** Stops listening and ends every connection: the fabric's nodes then fail with DEVICE_ERROR naming the hub. */
    @Override
    public void close() {
        hub.close();
    }
}
