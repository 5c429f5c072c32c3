package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.Regs;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The declarative cluster configuration of {@code mcctl apply} (docs/mcctl.md): YAML with {@code nodes},
 * {@code groups}, {@code regions} and {@code pct}. {@link #plan} validates the whole file against the
 * fabric and returns every problem with its line, or the writes to make; nothing is written here.
 */
final class ClusterConfig {
    /** A problem at a line of the file (1-based; 0 when it concerns the whole file). */
    record Problem(int line, String message) {
    }

    /** What apply will do. */
    record Plan(List<Integer> nodes, Map<Integer, Integer> groups, List<PctWrite> writes, int regions) {
    }

    private final String file;
    private final List<Problem> problems = new ArrayList<>();
    private final List<Integer> nodes = new ArrayList<>();
    private final Map<Integer, Integer> groups = new TreeMap<>();
    private final Map<Integer, Integer> groupLines = new HashMap<>();
    private final List<PctWrite> writes = new ArrayList<>();
    private final List<Integer> writeLines = new ArrayList<>();
    private int regions;

    private ClusterConfig(String file) {
        this.file = file;
    }

    static String format(String file, Problem p) {
        return p.line() > 0 ? file + ":" + p.line() + ": " + p.message() : file + ": " + p.message();
    }

    /** Parses and validates {@code text} against {@code t}; the plan is empty when there are problems. */
    static ClusterConfig check(String file, String text, AdapterView t) {
        ClusterConfig c = new ClusterConfig(file);
        c.parse(text, t);
        c.crossCheck(t); // over whatever parsed, so that every problem of the file is listed at once
        c.problems.sort(java.util.Comparator.comparingInt(Problem::line));
        return c;
    }

    List<Problem> problems() {
        return problems;
    }

    Plan plan() {
        return new Plan(nodes, groups, writes, regions);
    }

    private static int line(Node n) {
        return n.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private void problem(Node at, String message) {
        problems.add(new Problem(at == null ? 0 : line(at), message));
    }

    private void parse(String text, AdapterView t) {
        Node root;
        try {
            LoadSettings settings = LoadSettings.builder().setLabel(file).setAllowDuplicateKeys(false).build();
            Composer composer = new Composer(settings, new ParserImpl(settings, new StreamReader(settings, text)));
            root = composer.getSingleNode().orElse(null);
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().or(e::getContextMark).map(m -> m.getLine() + 1).orElse(0);
            problems.add(new Problem(line, "not valid YAML: " + e.getProblem()));
            return;
        } catch (YamlEngineException e) {
            problems.add(new Problem(0, "not valid YAML: " + e.getMessage()));
            return;
        }
        if (!(root instanceof MappingNode top)) {
            problems.add(new Problem(root == null ? 0 : line(root), "the file must be a mapping with nodes:, groups:, regions: and/or pct:"));
            return;
        }
        Map<String, Node> sections = mapping(top, Set.of("version", "nodes", "groups", "regions", "pct"));
        if (sections.containsKey("version")) {
            Integer v = integer(sections.get("version"), "version");
            if (v != null && v != 1) {
                problem(sections.get("version"), "config version " + v + " is not supported; this mcctl reads version 1");
            }
        }
        if (sections.containsKey("nodes")) {
            for (Node n : sequence(sections.get("nodes"), "nodes")) {
                Integer id = nodeId(n, t, "node ID");
                if (id != null) {
                    if (nodes.contains(id)) {
                        problem(n, "node " + id + " is listed twice");
                    }
                    nodes.add(id);
                    // a soft-fabric node's PCT exists while its process holds it; an adapter's PCT is the
                    // driver's, with or without a member process (configured before programs start)
                    if (t.kind().equals("soft") && !t.node(id).live()) {
                        problem(n, "node " + id + " is not joined to " + t.location() + ": start it (mcctl node join --node " + id + ")");
                    }
                }
            }
        } else {
            problem(top, "missing nodes: the node IDs of the cluster, e.g. nodes: [0, 1]");
        }
        if (sections.containsKey("groups")) {
            Node g = sections.get("groups");
            if (g instanceof MappingNode gm) {
                for (NodeTuple tuple : gm.getValue()) {
                    Integer group = integer(tuple.getKeyNode(), "multicast group");
                    if (group != null && (group < 0 || group >= Regs.MULTICAST_GROUPS)) {
                        problem(tuple.getKeyNode(), "multicast group " + group + " out of range 0.." + (Regs.MULTICAST_GROUPS - 1));
                        continue;
                    }
                    int mask = 0;
                    for (Node member : sequence(tuple.getValueNode(), "members of group " + group)) {
                        Integer id = declaredNode(member, t);
                        if (id != null) {
                            mask |= 1 << id;
                        }
                    }
                    if (group != null) {
                        if (mask == 0) {
                            problem(tuple.getValueNode(), "multicast group " + group + " has no members");
                        }
                        groups.put(group, mask);
                        groupLines.put(group, line(tuple.getKeyNode()));
                    }
                }
            } else {
                problem(g, "groups: must map group numbers to node lists, e.g. groups: {1: [0, 2]}");
            }
        }
        if (sections.containsKey("regions")) {
            for (Node r : sequence(sections.get("regions"), "regions")) {
                region(r, t);
            }
        }
        if (sections.containsKey("pct")) {
            for (Node p : sequence(sections.get("pct"), "pct")) {
                pctItem(p, t);
            }
        }
    }

    /** The keys of a mapping node, refusing unknown and duplicate keys. */
    private Map<String, Node> mapping(Node node, Set<String> allowed) {
        Map<String, Node> out = new LinkedHashMap<>();
        if (!(node instanceof MappingNode m)) {
            problem(node, "expected a mapping with keys " + new java.util.TreeSet<>(allowed));
            return out;
        }
        for (NodeTuple tuple : m.getValue()) {
            String key = tuple.getKeyNode() instanceof ScalarNode s ? s.getValue() : "?";
            if (!allowed.contains(key)) {
                problem(tuple.getKeyNode(), "unknown key '" + key + "' (expected one of " + new java.util.TreeSet<>(allowed) + ")");
            } else if (out.put(key, tuple.getValueNode()) != null) {
                problem(tuple.getKeyNode(), "key '" + key + "' appears twice");
            }
        }
        return out;
    }

    private List<Node> sequence(Node node, String what) {
        if (node instanceof SequenceNode s) {
            return s.getValue();
        }
        problem(node, what + " must be a list, e.g. [0, 1]");
        return List.of();
    }

    private String scalar(Node node, String what) {
        if (node instanceof ScalarNode s) {
            return s.getValue();
        }
        problem(node, what + " must be a single value");
        return null;
    }

    private Integer integer(Node node, String what) {
        String s = scalar(node, what);
        if (s == null) {
            return null;
        }
        try {
            return Integer.decode(s.trim());
        } catch (NumberFormatException e) {
            problem(node, what + " '" + s + "' is not a number");
            return null;
        }
    }

    private Boolean bool(Node node, String what) {
        String s = scalar(node, what);
        if (s == null) {
            return null;
        }
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> {
                problem(node, what + " must be true or false, not '" + s + "'");
                yield null;
            }
        };
    }

    private Integer nodeId(Node n, AdapterView t, String what) {
        Integer id = integer(n, what);
        if (id != null && (id < 0 || id >= t.maxNodes())) {
            problem(n, "node ID " + id + " out of range 0.." + (t.maxNodes() - 1) + " for " + t.location());
            return null;
        }
        return id;
    }

    /** A node ID that must also be listed under nodes: (an unknown destination otherwise). */
    private Integer declaredNode(Node n, AdapterView t) {
        Integer id = nodeId(n, t, "node ID");
        if (id != null && !nodes.contains(id)) {
            problem(n, "node " + id + " is not listed under nodes:");
            return null;
        }
        return id;
    }

    private Syntax.Pages pages(Node n, AdapterView t) {
        String s = scalar(n, "pages");
        if (s == null) {
            return null;
        }
        try {
            Syntax.Pages p = Syntax.pages(s, t.pageCount());
            if (p.first() < Regs.SYS_PAGES) {
                problem(n, "pages " + p + " include system pages 0.." + (Regs.SYS_PAGES - 1) + " (the cluster service's)");
                return null;
            }
            return p;
        } catch (McctlException e) {
            problem(n, e.getMessage());
            return null;
        }
    }

    /** The route bits of a destination, checked against the config's nodes and groups; null when invalid, -1 for off. */
    private Integer route(Node n, AdapterView t) {
        String s = scalar(n, "destination");
        if (s == null) {
            return null;
        }
        try {
            int r = Syntax.route(s, t.maxNodes());
            if (r >= 0 && TxPct.destKind(r) == Regs.DEST_KIND_NODE && !nodes.contains(TxPct.dest(r))) {
                problem(n, "unknown destination: node " + TxPct.dest(r) + " is not listed under nodes:");
                return null;
            }
            if (r >= 0 && TxPct.destKind(r) == Regs.DEST_KIND_MULTICAST && !groups.containsKey(TxPct.dest(r))
                    && t.cluster().multicastGroup(TxPct.dest(r)) == 0) {
                problem(n, "unknown destination: multicast group " + TxPct.dest(r) + " is neither under groups: nor defined in the fabric");
                return null;
            }
            return r;
        } catch (McctlException e) {
            problem(n, e.getMessage());
            return null;
        }
    }

    private void add(Node at, int node, Syntax.Pages p, Integer tx, Long rx) {
        for (int page = p.first(); page <= p.last(); page++) {
            writes.add(new PctWrite(node, page, tx, rx));
            writeLines.add(line(at));
        }
    }

    private void region(Node r, AdapterView t) {
        int before = problems.size();
        Map<String, Node> m = mapping(r, Set.of("name", "pages", "route", "transmitters", "receivers", "local_copy", "ack", "interrupt"));
        for (String required : List.of("pages", "route", "transmitters")) {
            if (!m.containsKey(required)) {
                problem(r, "region needs " + required + ":");
            }
        }
        if (problems.size() > before) {
            return;
        }
        String name = m.containsKey("name") ? scalar(m.get("name"), "name") : "at line " + line(r);
        Syntax.Pages p = pages(m.get("pages"), t);
        Integer route = route(m.get("route"), t);
        boolean local = m.containsKey("local_copy") && Boolean.TRUE.equals(bool(m.get("local_copy"), "local_copy"));
        boolean ack = m.containsKey("ack") && Boolean.TRUE.equals(bool(m.get("ack"), "ack"));
        boolean irq = m.containsKey("interrupt") && Boolean.TRUE.equals(bool(m.get("interrupt"), "interrupt"));
        Set<Integer> txs = new LinkedHashSet<>();
        for (Node n : sequence(m.get("transmitters"), "transmitters")) {
            Integer id = declaredNode(n, t);
            if (id != null) {
                txs.add(id);
            }
        }
        Set<Integer> rxs = new LinkedHashSet<>();
        if (m.containsKey("receivers")) {
            for (Node n : sequence(m.get("receivers"), "receivers")) {
                Integer id = declaredNode(n, t);
                if (id != null) {
                    rxs.add(id);
                }
            }
        }
        if (route != null && route < 0) {
            problem(m.get("route"), "region " + name + ": route must be node:N, broadcast or group:G, not off");
            return;
        }
        if (problems.size() > before || p == null || route == null) {
            return;
        }
        // The routing invariant of docs/soft-fabric.md: every receiver is in every transmitter's destination set.
        for (int tNode : txs) {
            for (int rNode : rxs) {
                if (!delivers(route, tNode, rNode, local, t)) {
                    problem(r, "region " + name + ": transmitter " + tNode + " routed " + TxPct.describe(route | 1)
                            + (local ? " with" : " without") + " local copy does not deliver to receiver " + rNode);
                }
            }
        }
        if (problems.size() > before) {
            return;
        }
        regions++;
        int txEntry = TxPct.encode(true, local, ack, TxPct.destKind(route), TxPct.dest(route));
        long rxEntry = RxPct.encode(true, irq);
        for (int n = 0; n < t.maxNodes(); n++) {
            if (txs.contains(n) || rxs.contains(n)) {
                add(r, n, p, txs.contains(n) ? txEntry : null, rxs.contains(n) ? rxEntry : null);
            }
        }
    }

    private boolean delivers(int route, int sender, int receiver, boolean local, AdapterView t) {
        if (sender == receiver) {
            return local;
        }
        return switch (TxPct.destKind(route)) {
            case Regs.DEST_KIND_NODE -> TxPct.dest(route) == receiver;
            case Regs.DEST_KIND_BROADCAST -> true;
            default -> {
                int g = TxPct.dest(route);
                int mask = groups.containsKey(g) ? groups.get(g) : t.cluster().multicastGroup(g);
                yield (mask & (1 << receiver)) != 0;
            }
        };
    }

    private void pctItem(Node item, AdapterView t) {
        int before = problems.size();
        Map<String, Node> m = mapping(item, Set.of("node", "pages", "tx", "local_copy", "ack", "rx", "interrupt"));
        for (String required : List.of("node", "pages")) {
            if (!m.containsKey(required)) {
                problem(item, "pct entry needs " + required + ":");
            }
        }
        if (problems.size() > before) {
            return;
        }
        Integer node = declaredNode(m.get("node"), t);
        Syntax.Pages p = pages(m.get("pages"), t);
        Integer route = m.containsKey("tx") ? route(m.get("tx"), t) : Integer.valueOf(-1);
        boolean local = m.containsKey("local_copy") && Boolean.TRUE.equals(bool(m.get("local_copy"), "local_copy"));
        boolean ack = m.containsKey("ack") && Boolean.TRUE.equals(bool(m.get("ack"), "ack"));
        Boolean rx = m.containsKey("rx") ? bool(m.get("rx"), "rx") : Boolean.FALSE;
        boolean irq = m.containsKey("interrupt") && Boolean.TRUE.equals(bool(m.get("interrupt"), "interrupt"));
        if (route != null && route < 0 && (local || ack)) {
            problem(item, "local_copy and ack need a tx destination");
        }
        if (irq && !Boolean.TRUE.equals(rx)) {
            problem(item, "interrupt needs rx: true");
        }
        if (problems.size() > before || node == null || p == null || route == null || rx == null) {
            return;
        }
        int txEntry = route < 0 ? 0 : TxPct.encode(true, local, ack, TxPct.destKind(route), TxPct.dest(route));
        add(item, node, p, txEntry, RxPct.encode(rx, irq));
    }

    /** Checks the expanded writes against each other and against the fabric, with the lines they came from. */
    private void crossCheck(AdapterView t) {
        Map<List<Integer>, Integer> firstLine = new HashMap<>();
        Map<List<Integer>, PctWrite> byKey = new HashMap<>();
        Map<Integer, Map<Integer, Integer>> finalTx = new TreeMap<>(); // page -> node -> entry, for the pages the file sets
        List<DirectoryEntry> allocated = t.cluster().regions();
        Set<String> reported = new LinkedHashSet<>();
        for (int i = 0; i < writes.size(); i++) {
            PctWrite w = writes.get(i);
            int line = writeLines.get(i);
            List<Integer> key = List.of(w.node(), w.page());
            PctWrite prev = byKey.putIfAbsent(key, w);
            if (prev != null && (!java.util.Objects.equals(prev.tx(), w.tx()) && prev.tx() != null && w.tx() != null
                    || !java.util.Objects.equals(prev.rx(), w.rx()) && prev.rx() != null && w.rx() != null)) {
                report(reported, line, "page " + w.page() + " of node " + w.node() + " is also set, differently, at line " + firstLine.get(key));
            }
            firstLine.putIfAbsent(key, line);
            for (DirectoryEntry r : allocated) { // static carve-outs are the operator's own: setting them again is fine
                if (!r.isStatic() && w.page() >= r.firstPage() && w.page() < r.firstPage() + r.pageCount()) {
                    report(reported, line, String.format("page %d belongs to region 0x%x allocated in the directory (pages %d..%d)",
                            w.page(), r.key(), r.firstPage(), r.firstPage() + r.pageCount() - 1));
                }
            }
            if (w.tx() != null) {
                finalTx.computeIfAbsent(w.page(), k -> new HashMap<>()).put(w.node(), w.tx());
            }
        }
        for (Map.Entry<Integer, Integer> g : groups.entrySet()) { // the directory refuses to change a group in use
            if (t.cluster().multicastGroup(g.getKey()) == g.getValue()) {
                continue;
            }
            for (DirectoryEntry r : allocated) {
                if (r.routed() && TxPct.destKind(r.route()) == Regs.DEST_KIND_MULTICAST && TxPct.dest(r.route()) == g.getKey()) {
                    report(reported, groupLines.get(g.getKey()), String.format("multicast group %d is in use by region 0x%x "
                            + "(allocated in the directory); its members cannot change while it transmits", g.getKey(), r.key()));
                }
            }
        }
        Set<Integer> visible = new java.util.HashSet<>(); // adapters whose PCT this target reads (a device: its own)
        for (int n : t.adapters()) {
            visible.add(n);
        }
        for (Map.Entry<Integer, Map<Integer, Integer>> e : finalTx.entrySet()) {
            int page = e.getKey();
            Map<Integer, Integer> routes = new TreeMap<>(); // route -> a node using it
            for (int n = 0; n < t.maxNodes(); n++) {
                if (!e.getValue().containsKey(n) && !visible.contains(n)) {
                    continue; // another host's adapter: its mcctl checks its own entries
                }
                int entry = e.getValue().containsKey(n) ? e.getValue().get(n) : t.txPct(n, page);
                if (TxPct.enabled(entry)) {
                    routes.putIfAbsent(TxPct.route(entry), n);
                }
            }
            if (routes.size() > 1) {
                StringBuilder sb = new StringBuilder();
                routes.forEach((route, n) -> sb.append(sb.isEmpty() ? "" : ", ").append("node ").append(n)
                        .append(sb.isEmpty() ? " routes it to " : " to ").append(TxPct.describe(route | 1)));
                for (int i = 0; i < writes.size(); i++) { // at every line that routes this page
                    if (writes.get(i).page() == page && writes.get(i).tx() != null && TxPct.enabled(writes.get(i).tx())) {
                        report(reported, writeLines.get(i), "conflicting routes for page " + page + ": " + sb
                                + " (one network page has one route)");
                    }
                }
            }
        }
        if (problems.isEmpty()) { // whatever the fabric itself would refuse (e.g. a node that left meanwhile)
            for (String p : t.problems(writes)) {
                report(reported, 0, p);
            }
        }
        if (!problems.isEmpty()) {
            writes.clear();
        }
    }

    private void report(Set<String> reported, int line, String message) {
        if (reported.add(line + message)) {
            problems.add(new Problem(line, message));
        }
    }
}
