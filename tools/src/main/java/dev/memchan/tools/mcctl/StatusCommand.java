package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.NodeStatus;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.spi.Location;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.*;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Adapter or fabric identity and version, node IDs, membership and link state of every node, "
                + "PCT usage, error and traffic counters, the global clock (time, error bound, each node's offset), "
                + "regions and multicast groups."},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl status --fabric shm:lab", "  mcctl status --all --json | jq '.nodes[] | select(.state==\"joined\")'"})
final class StatusCommand extends Base {
    @Option(names = "--all", description = "List free node IDs too.")
    boolean all;

    @Option(names = "--pct", description = "Include every PCT entry that is set, system pages too (with --json; "
            + "'mcctl pct show' prints tables).")
    boolean pct;

    @Override
    public Integer call() {
        try (AdapterView t = openView()) {
            Map<String, Object> doc = snapshot(t, all, pct);
            if (json()) {
                printJson(doc);
            } else {
                print(doc);
            }
        }
        return Exit.OK;
    }

    /**
     * Which bitstream the adapter runs: BUILD_GIT (the commit's first 8 hex digits) and BUILD_TIME
     * (seconds since 1970 UTC), both 0 where nothing stamped them.
     */
    static Map<String, Object> build(int git, int time) {
        if (git == 0 && time == 0) {
            return Json.obj("stamped", false);
        }
        return Json.obj("stamped", true, "git", String.format("%08x", git),
                "time", Instant.ofEpochSecond(Integer.toUnsignedLong(time)).toString());
    }

    static Map<String, Object> snapshot(AdapterView t, boolean all, boolean withPct) {
        int first = t.adapters()[0];
        int version = t.readRegister(first, REG_VERSION);
        int caps = t.readRegister(first, REG_CAPS);
        Map<String, Object> adapter = Json.obj(
                "id", String.format("0x%08X", t.readRegister(first, REG_ID)),
                "register_map", ((version & VERSION_MAJOR_MASK) >>> VERSION_MAJOR_SHIFT) + "." + (version & VERSION_MINOR_MASK),
                "caps", Counters.caps(caps),
                "build", build(t.readRegister(first, REG_BUILD_GIT), t.readRegister(first, REG_BUILD_TIME)),
                "page_size", t.pageSize(), "page_count", t.pageCount(), "system_pages", SYS_PAGES, "max_nodes", t.maxNodes());
        boolean adapterClock = (caps & CAPS_GLOBAL_CLOCK_MASK) != 0;
        boolean hubMode = (caps & CAPS_HUB_MODE_MASK) != 0;
        // each visible node's PCT and page counters, every page read once (on a board: BAR accesses per page)
        int[] tx = new int[t.pageCount()];
        long[] rx = new long[t.pageCount()];
        long[] reads = new long[t.pageCount()];
        long[] atomics = new long[t.pageCount()];
        List<Object> nodes = new ArrayList<>();
        for (int n = 0; n < t.maxNodes(); n++) {
            NodeStatus info = t.node(n);
            boolean visible = java.util.Arrays.stream(t.adapters()).anyMatch(a -> a == info.node());
            if (!all && !listed(t, info)) {
                continue;
            }
            Map<String, Object> node = Json.obj("node", n, "state", info.state(), "pid", info.pid(),
                    "incarnation", info.incarnation(), "heartbeat", info.heartbeat());
            if (visible) {
                t.readPct(n, 0, tx, rx);
                int[] usage = Counters.pctUsage(tx, rx);
                node.put("node_id_register", Counters.nodeIdRegister(t.readRegister(n, REG_NODE_ID)));
                node.put("link", Counters.link(t.readRegister(n, REG_LINK_STATUS)));
                node.put("tx_pages", usage[0]);
                node.put("rx_pages", usage[1]);
                node.put("counters", Counters.read(t, n));
                node.put("page_count_threshold", Integer.toUnsignedLong(t.readRegister(n, REG_PAGE_CNT_THRESHOLD)));
                node.put("hot_pages", t.readPageCounters(n, reads, atomics) ? Counters.hotPages(reads, atomics, 8) : List.of());
                if (adapterClock) {
                    node.put("clock", adapterClock(t, n));
                } else if (t.kind().equals("soft")) {
                    node.put("clock", Json.obj("offset", 0, "bound", 0));
                }
                if (hubMode) {
                    node.put("nodes_up", nodesUp(t.readRegister(n, REG_NODES_UP)));
                }
                if (withPct) {
                    List<Object> entries = new ArrayList<>();
                    for (int p = 0; p < tx.length; p++) {
                        if (tx[p] != 0 || rx[p] != 0) {
                            entries.add(Json.obj("page", p, "tx", String.format("0x%08x", tx[p]), "rx", String.format("0x%x", rx[p])));
                        }
                    }
                    node.put("pct", entries);
                }
            }
            nodes.add(node);
        }
        List<Object> groups = new ArrayList<>();
        for (int g = 0; g < MULTICAST_GROUPS; g++) {
            int mask = t.cluster().multicastGroup(g);
            if (mask != 0) {
                groups.add(Json.obj("group", g, "nodes", DirectoryEntry.nodes(mask)));
            }
        }
        List<Object> regions = new ArrayList<>();
        for (DirectoryEntry r : t.cluster().regions()) {
            regions.add(Targets.regionJson(r));
        }
        Map<String, Object> doc = Json.obj("fabric", t.location(), "kind", t.kind());
        doc.putAll(identity(t));
        doc.put("adapter", adapter);
        Map<String, Object> own = adapterClock ? adapterClock(t, first) : Map.of();
        boolean masterNanos = t.clockUnit() == dev.memchan.ClusterTime.Unit.NANOSECONDS;
        doc.put("clock", adapterClock ? Json.obj("source", masterNanos
                        ? "the clock master's monotonic clock, by the driver's exchange with it (ivshmem)" : "adapter GLOBAL_TIME",
                "unit", masterNanos ? "ns" : "link_cycles", "time", own.get("time"), "bound", own.get("bound"))
                : t.kind().equals("soft") ? Json.obj("source", "host monotonic clock: every node of a soft fabric reads it",
                        "unit", "ns", "time", System.nanoTime(), "bound", 0)
                : t.kind().equals("ucx") ? Json.obj("source", "none", "reason",
                        "cluster time on ucx:// is the hub's clock, each process's offset taken at its join; this view does not contact the hub")
                : Json.obj("source", "none", "reason", "CAPS.GLOBAL_CLOCK is clear"));
        doc.put("directory_generation", t.cluster().generation());
        doc.put("nodes", nodes);
        doc.put("groups", groups);
        doc.put("regions", regions);
        return doc;
    }

    /** Identity lines: the soft fabric's ID, file, size and creation time; a device's path and node. */
    static Map<String, Object> identity(AdapterView t) {
        if (t instanceof SoftFabricView soft) {
            return Json.obj("fabric_id", String.format("%016x", soft.fabricId()), "file", soft.file().toString(),
                    "file_size", soft.layout().fileSize(),
                    "created", Instant.ofEpochMilli(soft.createdNanos() / 1_000_000).toString());
        }
        if (t.kind().equals("ucx")) {
            return Json.obj("hub", Location.parse(t.location()).path().replaceFirst("^//", "").replaceFirst("/.*", ""),
                    "seen_from", "this host's copy: the adapters of the nodes running here, the system pages as applied here");
        }
        return Json.obj("device", Location.parse(t.location()).path(), "node", t.adapters()[0]);
    }

    /**
     * A node's global clock registers: time (GLOBAL_TIME, LO then HI), VALID and MASTER, bound (null while not
     * VALID), offset (its time minus the master's at the last sync sample), sync samples taken.
     */
    static Map<String, Object> adapterClock(AdapterView t, int n) {
        int lo = t.readRegister(n, REG_GLOBAL_TIME_LO);
        long time = dev.memchan.spi.Backend.registerPair(lo, t.readRegister(n, REG_GLOBAL_TIME_HI));
        int status = t.readRegister(n, REG_CLOCK_STATUS);
        long bound = Integer.toUnsignedLong(t.readRegister(n, REG_CLOCK_BOUND));
        boolean valid = (status & CLOCK_STATUS_VALID_MASK) != 0;
        return Json.obj("time", time, "valid", valid, "master", (status & CLOCK_STATUS_MASTER_MASK) != 0,
                "bound", valid ? bound : null, "offset", t.readRegister(n, REG_CLOCK_OFFSET),
                "syncs", (int) ((status & CLOCK_STATUS_SYNCS_MASK) >>> CLOCK_STATUS_SYNCS_SHIFT));
    }

    /**
     * NODES_UP: the nodes whose hub ports are up, as the hub last reported them (port supervision: a node
     * whose link or heartbeat died is isolated); null while there is no report (back to back, or this
     * adapter's own link is down), since a hub always reports the asking node itself.
     */
    static List<Integer> nodesUp(int mask) {
        if (mask == 0) {
            return null;
        }
        List<Integer> up = new ArrayList<>();
        for (int n = 0; n < Integer.SIZE; n++) {
            if ((mask & (1 << n)) != 0) {
                up.add(n);
            }
        }
        return up;
    }

    /** A node worth a line: joined or being cleaned up, or this host's adapter. */
    static boolean listed(AdapterView t, NodeStatus info) {
        return info.claimed() || info.memberState() != 0 || (t.kind().equals("dev") && t.adapters()[0] == info.node());
    }

    @SuppressWarnings("unchecked")
    private void print(Map<String, Object> doc) {
        var out = out();
        Map<String, Object> a = (Map<String, Object>) doc.get("adapter");
        out.printf("fabric     %s (%s)%n", doc.get("fabric"), switch ((String) doc.get("kind")) {
            case "soft" -> "soft fabric";
            case "ucx" -> "network fabric through its hub";
            default -> "adapter";
        });
        for (String k : List.of("fabric_id", "file", "file_size", "created", "device", "hub", "seen_from")) {
            if (doc.containsKey(k)) {
                out.printf("%-10s %s%n", k.replace('_', ' '), doc.get(k));
            }
        }
        out.printf("adapter    ID %s, register map %s, caps %s%n", a.get("id"), a.get("register_map"), a.get("caps"));
        Map<String, Object> build = (Map<String, Object>) a.get("build");
        out.printf("build      %s%n", build.containsKey("git") ? "commit " + build.get("git") + ", built " + build.get("time")
                : "no stamp (an emulated adapter, the co-simulated board, or a bitstream built without one)");
        out.printf("window     %s pages of %s bytes (%s system pages), %s node IDs%n", a.get("page_count"), a.get("page_size"),
                a.get("system_pages"), a.get("max_nodes"));
        Map<String, Object> clock = (Map<String, Object>) doc.get("clock");
        out.printf("clock      %s%n", clock.containsKey("time")
                ? String.format("time %s %s, bound %s (%s)", clock.get("time"), clock.get("unit"),
                        clock.get("bound") == null ? "none: not synchronized" : clock.get("bound"), clock.get("source"))
                : "none: " + clock.get("reason"));
        out.printf("directory  generation %s, %d regions, %d multicast groups%n", doc.get("directory_generation"),
                ((List<?>) doc.get("regions")).size(), ((List<?>) doc.get("groups")).size());
        out.println();
        out.printf("%-4s %-8s %-8s %-5s %-9s %-7s %-5s %-8s %-8s %-8s %-8s %-6s%n", "NODE", "STATE", "PID", "INC", "HEARTBEAT",
                "NODE_ID", "LINK", "TX_PAGES", "RX_PAGES", "NOTIFY", "ERRORS", "CRC");
        for (Object o : (List<?>) doc.get("nodes")) {
            Map<String, Object> n = (Map<String, Object>) o;
            Map<String, Long> c = (Map<String, Long>) n.get("counters");
            out.printf("%-4s %-8s %-8s %-5s %-9s %-7s %-5s %-8s %-8s %-8s %-8s %-6s%n", n.get("node"), n.get("state"),
                    n.get("pid"), n.get("incarnation"), n.get("heartbeat"), n.getOrDefault("node_id_register", "?"),
                    n.getOrDefault("link", "?"), n.getOrDefault("tx_pages", "?"), n.getOrDefault("rx_pages", "?"),
                    c == null ? "?" : c.get("notify_count"), c == null ? "?" : c.get("error_count"), c == null ? "?" : c.get("crc_errors"));
        }
        if (((List<?>) doc.get("nodes")).isEmpty()) {
            out.println("(no node joined: mcctl node join --node N)");
        }
        for (Object o : (List<?>) doc.get("nodes")) {
            Map<String, Object> n = (Map<String, Object>) o;
            Map<String, Long> c = (Map<String, Long>) n.get("counters");
            List<?> hot = (List<?>) n.get("hot_pages");
            if (c != null && (c.get("remote_refused") != 0 || hot != null && !hot.isEmpty())) {
                StringBuilder sb = new StringBuilder();
                for (Object h : hot) {
                    Map<String, Object> m = (Map<String, Object>) h;
                    sb.append(String.format(" %s:%s/%s", m.get("page"), m.get("remote_reads"), m.get("remote_atomics")));
                }
                out.printf("node %s as home: %s remote requests refused; page reads/atomics served:%s (threshold %s)%n", n.get("node"),
                        c.get("remote_refused"), sb.isEmpty() ? " none" : sb, n.get("page_count_threshold"));
            }
        }
        for (Object o : (List<?>) doc.get("nodes")) {
            Map<String, Object> n = (Map<String, Object>) o;
            Map<String, Object> c = (Map<String, Object>) n.get("clock");
            if (c != null && c.containsKey("valid")) {
                out.printf("node %s clock: offset %s, bound %s%s, %s sync samples%n", n.get("node"), c.get("offset"),
                        c.get("bound") == null ? "none (not synchronized)" : c.get("bound"),
                        Boolean.TRUE.equals(c.get("master")) ? ", master" : "", c.get("syncs"));
            }
            if (n.containsKey("nodes_up")) {
                List<?> up = (List<?>) n.get("nodes_up");
                out.printf("node %s hub: %s%n", n.get("node"), up == null ? "no report (cabled back to back, or its link is down)"
                        : "nodes up " + up.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")));
            }
        }
        for (Object o : (List<?>) doc.get("groups")) {
            Map<String, Object> g = (Map<String, Object>) o;
            out.printf("group %s: nodes %s%n", g.get("group"), g.get("nodes"));
        }
        if (!((List<?>) doc.get("regions")).isEmpty()) {
            out.println();
            out.printf("%-18s %-8s %-6s %-6s %-5s %-10s %-10s %-10s %s%n", "REGION KEY", "KIND", "FIRST", "PAGES", "MODE", "USERS", "TX", "RX", "ROUTE");
            for (Object o : (List<?>) doc.get("regions")) {
                Map<String, Object> r = (Map<String, Object>) o;
                out.printf("%-18s %-8s %-6s %-6s %-5s %-10s %-10s %-10s %s%n", r.get("key"), r.get("kind"), r.get("first_page"), r.get("pages"),
                        r.get("mode"), r.get("users"), r.get("tx_nodes"), r.get("rx_nodes"), r.get("route"));
            }
        }
        out.flush();
    }
}
