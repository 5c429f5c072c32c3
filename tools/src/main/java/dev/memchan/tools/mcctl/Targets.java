package dev.memchan.tools.mcctl;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.MemberSlot;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.TxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static dev.memchan.layout.Regs.*;

/** Fabric selection ({@code --fabric}) and the two {@link Target}s. */
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

    /** Opens the target at {@code location} (already {@link #resolve}d). */
    public static Target open(String location) {
        if (isSoft(location)) {
            return new Soft(SoftFabricView.open(Location.parse(location).path()));
        }
        return new Device(location);
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
        long min = 2 * defaults.heartbeatPeriod().toMillis(), max = 3_600_000;
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

    /** The soft fabric: an admin view of the file, claiming no node. */
    static final class Soft implements Target {
        private final SoftFabricView admin;

        Soft(SoftFabricView admin) {
            this.admin = admin;
        }

        @Override
        public String location() {
            return admin.location();
        }

        @Override
        public String kind() {
            return "soft";
        }

        @Override
        public int maxNodes() {
            return admin.layout().maxNodes();
        }

        @Override
        public int pageSize() {
            return admin.layout().pageSize();
        }

        @Override
        public int pageCount() {
            return admin.layout().pageCount();
        }

        @Override
        public int[] adapters() {
            return java.util.stream.IntStream.range(0, maxNodes()).toArray();
        }

        @Override
        public int readRegister(int node, int offset) {
            return admin.readRegister(node, offset);
        }

        @Override
        public int txPct(int node, int page) {
            return admin.txPct(node, page);
        }

        @Override
        public long rxPct(int node, int page) {
            return admin.rxPct(node, page);
        }

        @Override
        public boolean readPageCounters(int node, long[] reads, long[] atomics) {
            for (int p = 0; p < reads.length; p++) {
                reads[p] = admin.pageCounter(node, p, SF_PAGE_COUNTER_READS);
                atomics[p] = admin.pageCounter(node, p, SF_PAGE_COUNTER_ATOMICS);
            }
            return true;
        }

        @Override
        public NodeInfo node(int node) {
            long owner = admin.owner(node);
            MemberSlot m = admin.cluster().member(node);
            return new NodeInfo(node, owner != 0, admin.joined(node), SoftFabricGeometry.ownerPid(owner),
                    SoftFabricGeometry.ownerIncarnation(owner), m.state(), m.heartbeat());
        }

        @Override
        public int multicastGroup(int group) {
            return admin.cluster().multicastGroup(group);
        }

        @Override
        public long generation() {
            return admin.cluster().generation();
        }

        @Override
        public List<DirectoryEntry> regions() {
            return admin.cluster().regions();
        }

        @Override
        public List<String> pctProblems(List<PctWrite> batch) {
            return admin.problems(batch);
        }

        @Override
        public void writePct(List<PctWrite> batch) {
            admin.write(batch);
        }

        @Override
        public Map<String, Object> identity() {
            return Json.obj("fabric_id", String.format("%016x", admin.fabricId()),
                    "file", "/dev/shm/memchan-" + Location.parse(location()).path(),
                    "file_size", admin.layout().fileSize(),
                    "created", Instant.ofEpochMilli(admin.createdNanos() / 1_000_000).toString());
        }

        @Override
        public void close() {
            admin.close();
        }
    }

    /**
     * A device: this host's adapter through the library's {@code dev:} backend, opened alone (no cluster
     * join: the library runs one process per adapter node, and a second member on the same node would
     * clean up the first). Membership and directory are read through a receive grant of the system pages,
     * which the driver shares with the node's other users.
     */
    static final class Device implements Target {
        private final String location;
        private final Backend adapter;
        private final Backend.Grant systemGrant;
        private final ClusterView system;

        Device(String location) {
            this.location = location;
            this.adapter = adapter(location, -1);
            try {
                this.systemGrant = adapter.grantReceive(0, SYS_PAGES, RxPct.encode(true, false));
            } catch (RuntimeException e) {
                adapter.close();
                throw e;
            }
            this.system = ClusterView.of(systemGrant.segment(), adapter.pageSize(), adapter.maxNodes());
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public String kind() {
            return "dev";
        }

        @Override
        public dev.memchan.ClusterTime.Unit clockUnit() {
            return adapter.globalTimeUnit();
        }

        @Override
        public int maxNodes() {
            return adapter.maxNodes();
        }

        @Override
        public int pageSize() {
            return adapter.pageSize();
        }

        @Override
        public int pageCount() {
            return adapter.pageCount();
        }

        @Override
        public int[] adapters() {
            return new int[]{adapter.nodeId()};
        }

        private void own(int node) {
            if (node != adapter.nodeId()) {
                throw McctlException.usage("this host's adapter is node " + adapter.nodeId() + "; node " + node
                        + " is another host's adapter: run mcctl there");
            }
        }

        @Override
        public int readRegister(int node, int offset) {
            own(node);
            return adapter.readRegister(offset);
        }

        @Override
        public int txPct(int node, int page) {
            own(node);
            return adapter.txPct(page);
        }

        @Override
        public long rxPct(int node, int page) {
            own(node);
            return adapter.rxPct(page);
        }

        @Override
        public void readPct(int node, int firstPage, int[] tx, long[] rx) {
            own(node);
            adapter.readPct(firstPage, tx, rx);
        }

        @Override
        public boolean readPageCounters(int node, long[] reads, long[] atomics) {
            own(node);
            try {
                adapter.readPageCounters(0, reads, atomics);
                return true;
            } catch (MemchanException e) {
                if (e.kind() == MemchanException.Kind.UNSUPPORTED) {
                    return false;
                }
                throw e;
            }
        }

        @Override
        public NodeInfo node(int node) {
            MemberSlot m = system.member(node);
            boolean alive = m.state() == SYS_NODE_STATE_ALIVE;
            return new NodeInfo(node, alive, alive, m.pid(), m.incarnation(), m.state(), m.heartbeat());
        }

        @Override
        public int multicastGroup(int group) {
            return system.multicastGroup(group);
        }

        @Override
        public long generation() {
            return system.generation();
        }

        @Override
        public List<DirectoryEntry> regions() {
            return system.regions();
        }

        @Override
        public List<String> pctProblems(List<PctWrite> batch) {
            List<String> out = new ArrayList<>();
            List<DirectoryEntry> regions = system.regions();
            for (PctWrite w : batch) {
                if (w.node() != adapter.nodeId()) {
                    out.add("node " + w.node() + " is another host's adapter (this one is node " + adapter.nodeId() + ")");
                } else if (w.page() < SYS_PAGES || w.page() >= pageCount()) {
                    out.add("page " + w.page() + " is a system page or outside the window " + SYS_PAGES + ".." + (pageCount() - 1));
                } else if (DirectoryEntry.ownerProblem(regions, w.page()) != null) {
                    out.add(DirectoryEntry.ownerProblem(regions, w.page()));
                } else if (w.tx() != null && TxPct.problem(w.tx(), maxNodes()) != null) {
                    out.add("transmit PCT entry for page " + w.page() + ": " + TxPct.problem(w.tx(), maxNodes()));
                } else if (w.rx() != null && RxPct.problem(w.rx()) != null) {
                    out.add("receive PCT entry for page " + w.page() + ": " + RxPct.problem(w.rx()));
                }
            }
            return out;
        }

        /**
         * A receive entry as the driver takes it: remapping is the driver's (it adds its own and
         * refuses a written one), and an entry read back carries it (a board's driver receives
         * every page, so put-back values of unused pages are remapped too).
         */
        private static long withoutRemap(long rx) {
            return rx & ~(RX_PCT_REMAP_EN_MASK | RX_PCT_REMAP_ADDR_MASK);
        }

        @Override
        public void writePct(List<PctWrite> batch) {
            List<String> problems = pctProblems(batch);
            if (!problems.isEmpty()) {
                throw McctlException.usage(problems.getFirst() + "; nothing was changed");
            }
            List<PctWrite> undo = new ArrayList<>();
            try {
                for (PctWrite w : batch) {
                    undo.add(new PctWrite(w.node(), w.page(), adapter.txPct(w.page()), adapter.rxPct(w.page())));
                    if (w.tx() != null) {
                        adapter.writeTxPct(w.page(), w.tx());
                    }
                    if (w.rx() != null) {
                        adapter.writeRxPct(w.page(), withoutRemap(w.rx()));
                    }
                }
            } catch (MemchanException e) {
                for (PctWrite u : undo.reversed()) { // the driver refused one entry: put back what was written
                    adapter.writeTxPct(u.page(), u.tx());
                    adapter.writeRxPct(u.page(), withoutRemap(u.rx()));
                }
                throw e;
            }
        }

        @Override
        public Map<String, Object> identity() {
            return Json.obj("device", Location.parse(location).path(), "node", adapter.nodeId());
        }

        @Override
        public void close() {
            try {
                systemGrant.close();
            } finally {
                adapter.close();
            }
        }
    }
}
