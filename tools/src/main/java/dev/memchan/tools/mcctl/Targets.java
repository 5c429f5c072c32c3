package dev.memchan.tools.mcctl;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.FabricAdmin;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.TxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static dev.memchan.layout.Regs.*;

/** Fabric selection ({@code --fabric}), the library's view of its adapters, and joining it as a member. */
public final class Targets {
    /** The adapter mcctl uses when no {@code --fabric} is given and it exists. */
    public static final String DEFAULT_DEVICE = "/dev/memchan0";
    /** The soft fabric used otherwise. */
    public static final String DEFAULT_SOFT = "shm:default";

    private Targets() {
    }

    /**
     * {@code --fabric} as given ({@code /dev/...} standing for {@code dev:/dev/...}), or the default:
     * dev:/dev/memchan0 when present, else shm:default. A location the library cannot parse, or whose
     * scheme it has no backend for, is a usage error.
     */
    public static String resolve(String fabric) {
        if (fabric != null && !fabric.isBlank()) {
            String f = fabric.trim();
            if (f.startsWith("/dev/")) {
                f = "dev:" + f;
            }
            try {
                BackendProvider.of(Location.parse(f));
            } catch (MemchanException e) {
                throw McctlException.usage("--fabric: " + e.getMessage());
            }
            return f;
        }
        String env = System.getenv("MEMCHAN_FABRIC");
        if (env != null && !env.isBlank()) {
            return resolve(env);
        }
        return Files.exists(Path.of(DEFAULT_DEVICE)) ? "dev:" + DEFAULT_DEVICE : DEFAULT_SOFT;
    }

    public static boolean isSoft(String location) {
        return Location.parse(location).scheme().equals("shm");
    }

    /** The soft fabric name of {@code shm:NAME}; a usage error for anything else. */
    public static String softName(String location, String what) {
        if (!isSoft(location)) {
            throw McctlException.usage(what + " works on the soft fabric only (--fabric shm:NAME), not on " + location);
        }
        return Location.parse(location).path();
    }

    /** The library's view of the adapters at {@code location} (already {@link #resolve}d), claiming no node. */
    public static AdapterView view(String location) {
        checkDevice(location);
        return FabricAdmin.view(location);
    }

    /** A missing device or one without permission is exit code 3, with what to do. */
    public static void checkDevice(String location) {
        Location parsed = Location.parse(location);
        if (!parsed.scheme().equals("dev")) {
            return;
        }
        Path dev = Path.of(parsed.path());
        if (!Files.exists(dev)) {
            throw new McctlException(Exit.NO_DEVICE, "no device " + dev + ": load the memchan driver (docs/driver.md), "
                    + "or use the soft fabric with --fabric shm:NAME");
        }
        if (!Files.isReadable(dev) || !Files.isWritable(dev)) {
            throw new McctlException(Exit.NO_DEVICE, "no permission to open " + dev + ": add yourself to the device's group "
                    + "(udev/ rules give it to group memchan) and log in again");
        }
    }

    /**
     * The adapter of a device alone, without joining the cluster: {@code nodeId} >= 0 sets its NODE_ID
     * (the driver keeps it after close). Opened through the library's BackendProvider for {@code dev:}.
     */
    public static Backend adapter(String location, int nodeId) {
        checkDevice(location);
        Location parsed = Location.parse(location);
        return BackendProvider.of(parsed).open(parsed, nodeId);
    }

    /** The options of every member mcctl joins as: the library's, with the root option --failure-timeout. */
    private static FabricOptions memberOptions = FabricOptions.defaults();

    /** Sets the failure timeout (null: the library's default); bad values are a usage error, nothing set. */
    static void failureTimeout(picocli.CommandLine cl, Long ms) {
        FabricOptions defaults = FabricOptions.defaults();
        if (ms == null) {
            memberOptions = defaults;
            return;
        }
        long min = 2 * defaults.heartbeatPeriod().toMillis();
        long max = 3_600_000;
        if (ms < min || ms > max) {
            throw new picocli.CommandLine.ParameterException(cl, "failure timeout " + ms + " ms out of range: "
                    + min + ".." + max + " ms (at least twice the heartbeat period, "
                    + defaults.heartbeatPeriod().toMillis() + " ms)");
        }
        memberOptions = defaults.withTiming(defaults.heartbeatPeriod(), java.time.Duration.ofMillis(ms));
    }

    /** The options a member mcctl joins as starts from (see {@link #failureTimeout}). */
    static FabricOptions memberOptions() {
        return memberOptions;
    }

    /**
     * Joins the fabric as a (transient) node of this process, for commands that need a member. On an
     * adapter the node is the adapter's, and only while no other process is its member.
     */
    public static Fabric join(String location) {
        return join(location, OptionalInt.empty());
    }

    /** {@link #join(String)} as node {@code nodeId} when present (soft fabric only). */
    public static Fabric join(String location, OptionalInt nodeId) {
        if (!isSoft(location) && Location.parse(location).path().endsWith("*")) {
            // dev:/dev/memchan*: the library takes the first adapter no member holds (docs/java-api.md)
            if (nodeId.isPresent()) {
                throw McctlException.usage("--node chooses a soft-fabric node; an adapter is the node its NODE_ID says");
            }
        } else if (!isSoft(location) && nodeId.isPresent()) {
            throw McctlException.usage("--node chooses a soft-fabric node; an adapter is the node its NODE_ID says "
                    + "(change it with: mcctl node set ID)");
        }
        // on an adapter whose node has a program, mcctl joins as one more process of that node
        FabricOptions options = memberOptions.withCreate(false);
        return Fabric.open(location, nodeId.isPresent() ? options.withNodeId(nodeId.getAsInt()) : options);
    }

    static Map<String, Object> regionJson(DirectoryEntry r) {
        return Json.obj("key", String.format("0x%x", r.key()), "first_page", r.firstPage(), "pages", r.pageCount(),
                "mode", String.format("0%o", r.mode()), "uid", r.uid(), "gid", r.gid(), "users", DirectoryEntry.nodes(r.users()),
                "tx_nodes", DirectoryEntry.nodes(r.txNodes()), "rx_nodes", DirectoryEntry.nodes(r.rxNodes()),
                "kind", r.isStatic() ? "static" : r.isLockSet() ? "lock set" : "region",
                "route", r.routed() ? TxPct.describe(r.route() | TX_PCT_TX_EN_MASK) : "-",
                "lock_set", r.lockCount());
    }

    /** Multicast groups set by {@code groups}, restoring the earlier masks when one is refused. */
    static void setGroups(Fabric fabric, Map<Integer, Integer> groups) {
        Map<Integer, Integer> done = new HashMap<>();
        try {
            for (Map.Entry<Integer, Integer> g : groups.entrySet()) {
                int before = fabric.multicastGroup(g.getKey());
                if (before != g.getValue()) {
                    fabric.setMulticastGroup(g.getKey(), g.getValue());
                    done.put(g.getKey(), before);
                }
            }
        } catch (RuntimeException e) {
            done.forEach(fabric::setMulticastGroup);
            throw e;
        }
    }

    /**
     * Writes {@code batch} through {@code view} to its fabric as one PCT transaction of the library
     * ({@link dev.memchan.admin.ClusterAdmin#writePct}: validated, written, the directory's static carve-outs
     * kept), joining as a member of this process for it.
     */
    static void writePct(AdapterView view, List<PctWrite> batch) {
        try (Fabric member = join(view.location())) {
            member.admin().writePct(view, batch);
        }
    }
}
