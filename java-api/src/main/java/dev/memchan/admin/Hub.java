package dev.memchan.admin;

import dev.memchan.layout.Regs;
import dev.memchan.spi.Location;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The hub of a {@code ucx://HOST:PORT/NAME} fabric (the sequencer every node of the fabric joins through,
 * docs/ucx.md), run in this process: it listens at HOST:PORT only and admits the nodes that prove they hold the
 * fabric's secret. {@link #createSecret} makes such a secret file. The location's scheme's {@link AdminProvider}
 * starts it; a scheme without hubs refuses with INVALID_ARGUMENT.
 */
public interface Hub extends AutoCloseable {
    /** What a hub has served: admissions and refusals since it started, hosts, processes and nodes now. */
    record Counts(long admitted, long refused, Map<String, Long> refusedBy, int hosts, int processes, int nodes) {
        public Counts {
            refusedBy = Map.copyOf(refusedBy);
        }
    }

    /**
     * Starts the hub of {@code location} ({@code ucx://HOST:PORT/NAME}) for a fabric of {@code fabricSize} bytes,
     * {@code pageSize}-byte pages and {@code maxNodes} nodes, admitting the nodes holding the secret in
     * {@code secretFile}. INVALID_ARGUMENT for another location or a bad geometry, PERMISSION or BAD_FORMAT for a
     * secret file that is refused, DEVICE_ERROR when it cannot listen.
     */
    static Hub start(String location, Path secretFile, long fabricSize, int pageSize, int maxNodes) {
        Location parsed = Location.parse(location);
        return FabricAdmin.provider(parsed).startHub(parsed, secretFile, fabricSize, pageSize, maxNodes);
    }

    /** {@link #start(String, Path, long, int, int)} with the soft fabric's default geometry. */
    static Hub start(String location, Path secretFile) {
        return start(location, secretFile, Regs.SF_DEFAULT_FILE_SIZE, Regs.SF_DEFAULT_PAGE_SIZE, Regs.SF_DEFAULT_MAX_NODES);
    }

    /**
     * Starts the standby of the hub at {@code primary} (HOST:PORT), listening at {@code location}'s HOST:PORT: it
     * joins the primary with the secret in {@code secretFile}, keeps its state, and takes over when the primary is
     * gone (docs/ucx.md, "The standby"). Its {@link #location()} names both hubs, as nodes join them. INVALID_ARGUMENT
     * for a bad location or address (or the primary's own), the primary's refusal as its join throws it (PERMISSION
     * for another secret; a standby of a standby, or a second standby), DEVICE_ERROR when no hub answers there.
     */
    static Hub standby(String location, Path secretFile, String primary) {
        Location parsed = Location.parse(location);
        return FabricAdmin.provider(parsed).startStandby(parsed, secretFile, primary);
    }

    /**
     * Writes a new random secret to {@code file}, created with mode 0600 (refused IN_USE when it exists): hand it
     * to the hub and to every node of the fabric (system property {@code memchan.ucx.secret} or environment
     * {@code MEMCHAN_UCX_SECRET}).
     */
    static void createSecret(Path file) {
        FabricAdmin.provider(Location.parse("ucx:secret")).createSecret(file);
    }

    /** The address the hub listens at. */
    InetSocketAddress address();

    /** The location nodes join, with the port the hub listens at (and the primary's, for a standby). */
    String location();

    /** The hub's counts, read on its thread (TIMEOUT when that thread does not answer within {@code timeout}). */
    Counts counts(Duration timeout);

    /** Stops listening and ends every connection: the fabric's nodes then fail with DEVICE_ERROR naming the hub. */
    @Override
    void close();
}
