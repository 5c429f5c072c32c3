package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.PctWrite;
import dev.memchan.layout.Regs;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

@Command(name = "pct", mixinStandardHelpOptions = true,
        description = {"Show and program the page control table (PCT): per network page, the transmit entry "
                + "(enable, destination node / broadcast / multicast group, local copy, acknowledge request) and the "
                + "receive entry (enable, interrupt on receive, and what the node grants others as the page's home: remote "
                + "read, remote atomics, the page-counter interrupt).",
                "Soft fabric: --node selects whose emulated adapter (any joined node). Adapter: this host's only. "
                        + "Every write is validated as a whole first; a refused write changes nothing."},
        subcommands = {PctCommand.Show.class, PctCommand.Set.class, PctCommand.Clear.class},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl pct show --fabric shm:lab --node 1", "  mcctl pct set --node 1 100-103 --tx node:0 --local-copy --rx --irq",
                "  mcctl pct clear --node 1 100+4"})
final class PctCommand extends Base {
    @Override
    public Integer call() {
        spec.commandLine().usage(err());
        return Exit.USAGE;
    }

    static int defaultNode(AdapterView t, Integer node) {
        if (node != null) {
            return Syntax.node(node, t.maxNodes());
        }
        int[] a = t.adapters();
        if (a.length == 1) {
            return a[0];
        }
        throw McctlException.usage("which node's PCT? give --node N (the soft fabric has " + t.maxNodes() + " adapters)");
    }

    static Map<String, Object> entryJson(int node, int page, int tx, long rx) {
        return Json.obj("node", node, "page", page, "tx", String.format("0x%08x", tx), "tx_enable", TxPct.enabled(tx),
                "destination", TxPct.enabled(tx) ? destination(tx) : null, "local_copy", TxPct.localCopy(tx),
                "ack_request", TxPct.ackRequest(tx), "rx", String.format("0x%016x", rx), "rx_enable", RxPct.enabled(rx),
                "interrupt", RxPct.interruptOnReceive(rx), "remote_read", RxPct.readable(rx), "remote_atomic", RxPct.atomics(rx),
                "count_irq", RxPct.countInterrupt(rx));
    }

    static String destination(int tx) {
        return switch (TxPct.destKind(tx)) {
            case Regs.DEST_KIND_NODE -> "node:" + TxPct.dest(tx);
            case Regs.DEST_KIND_BROADCAST -> "broadcast";
            default -> "group:" + TxPct.dest(tx);
        };
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print PCT entries as a table: every page of PAGES, or the pages with an entry set when PAGES is omitted.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl pct show --node 0", "  mcctl pct show --node 0 100-110 --json",
            "  mcctl pct show            # every joined node's programmed pages (soft fabric)"})
    static final class Show extends Base {
        @Option(names = "--node", description = "Whose PCT (soft fabric; default: every joined node).")
        Integer node;

        @Parameters(arity = "0..1", paramLabel = "PAGES", description = "N, FIRST-LAST or FIRST+COUNT.")
        String pages;

        @Option(names = "--system", description = "Include the system pages 0..7 (cluster service) when listing set entries.")
        boolean system;

        @Override
        public Integer call() {
            try (AdapterView t = openView()) {
                List<Integer> nodes = new ArrayList<>();
                if (node != null || t.adapters().length == 1) {
                    nodes.add(defaultNode(t, node));
                } else {
                    for (int n : t.adapters()) {
                        if (t.node(n).claimed()) {
                            nodes.add(n);
                        }
                    }
                }
                Syntax.Pages range = pages == null ? null : Syntax.pages(pages, t.pageCount());
                List<Object> rows = new ArrayList<>();
                for (int n : nodes) {
                    int first = range == null ? (system ? 0 : Regs.SYS_PAGES) : range.first();
                    int last = range == null ? t.pageCount() - 1 : range.last();
                    int[] tx = new int[last - first + 1]; // each page's pair read once
                    long[] rx = new long[tx.length];
                    t.readPct(n, first, tx, rx);
                    for (int i = 0; i < tx.length; i++) {
                        if (range != null || tx[i] != 0 || rx[i] != 0) {
                            rows.add(entryJson(n, first + i, tx[i], rx[i]));
                        }
                    }
                }
                if (json()) {
                    printJson(Json.obj("fabric", t.location(), "entries", rows));
                    return Exit.OK;
                }
                var out = out();
                out.printf("%-4s %-6s %-3s %-12s %-5s %-4s | %-3s %-4s %-4s %-6s %-5s%n", "NODE", "PAGE", "TX", "DEST", "LOCAL", "ACK", "RX", "IRQ",
                        "READ", "ATOMIC", "COUNT");
                for (Object o : rows) {
                    @SuppressWarnings("unchecked") Map<String, Object> r = (Map<String, Object>) o;
                    boolean txOn = (Boolean) r.get("tx_enable");
                    out.printf("%-4s %-6s %-3s %-12s %-5s %-4s | %-3s %-4s %-4s %-6s %-5s%n", r.get("node"), r.get("page"), txOn ? "on" : "-",
                            txOn ? r.get("destination") : "-", yes(txOn && (Boolean) r.get("local_copy")), yes(txOn && (Boolean) r.get("ack_request")),
                            (Boolean) r.get("rx_enable") ? "on" : "-", yes((Boolean) r.get("rx_enable") && (Boolean) r.get("interrupt")),
                            yes((Boolean) r.get("remote_read")), yes((Boolean) r.get("remote_atomic")), yes((Boolean) r.get("count_irq")));
                }
                if (rows.isEmpty()) {
                    out.println(nodes.isEmpty() ? "(no node joined)" : "(no entries set; pages " + Regs.SYS_PAGES + ".." + (t.pageCount() - 1)
                            + (system ? "" : ", --system for 0.." + (Regs.SYS_PAGES - 1)) + ")");
                }
                out.flush();
            }
            return Exit.OK;
        }

        private static String yes(boolean b) {
            return b ? "yes" : "-";
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Program PCT entries of PAGES on one node. --tx writes the transmit entry, --rx/--no-rx the "
                    + "receive entry; a table that is not mentioned stays as it is. The whole range is validated first "
                    + "(node joined, pages inside the window and not system or directory pages, destination in range, "
                    + "one route per page across all nodes)."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl pct set --node 1 100-103 --tx node:0",
            "  mcctl pct set --node 0 200 --tx broadcast --local-copy --ack --rx --irq", "  mcctl pct set --node 2 300+8 --tx group:1",
            "  mcctl pct set --node 1 100 --tx off --no-rx", "  mcctl pct set --node 0 400+2 --rx --read --atomic   # node 0 homes 400, 401"})
    static final class Set extends Base {
        @Option(names = "--node", description = "Whose PCT (required on the soft fabric).")
        Integer node;

        @Parameters(paramLabel = "PAGES", description = "N, FIRST-LAST or FIRST+COUNT.")
        String pages;

        @Option(names = "--tx", paramLabel = "DEST", description = "Transmit to node:N, broadcast or group:G; 'off' disables.")
        String txDest;

        @Option(names = "--local-copy", description = "Also deliver to this node (loopback, in order).")
        boolean localCopy;

        @Option(names = "--ack", description = "Request an acknowledgement for every packet.")
        boolean ack;

        @Option(names = "--rx", negatable = true, description = "Enable (--rx) or disable (--no-rx) receive.")
        Boolean rx;

        @Option(names = "--irq", description = "Interrupt on receive (with --rx).")
        boolean irq;

        @Option(names = "--read", description = "As the pages' home, let other nodes read them remotely (READ_EN; with --rx or --no-rx).")
        boolean read;

        @Option(names = "--atomic", description = "As the pages' home, let other nodes run remote atomics on them (ATOMIC_EN; with --rx or --no-rx).")
        boolean atomic;

        @Option(names = "--count-irq", description = "Notify this node when a page's read or atomic counter reaches the threshold "
                + "(COUNT_IRQ; with --rx or --no-rx; threshold: mcctl status --threshold).")
        boolean countIrq;

        @Override
        public Integer call() {
            if (txDest == null && rx == null) {
                throw McctlException.usage("nothing to set: give --tx DEST|off and/or --rx/--no-rx");
            }
            try (AdapterView t = openView()) {
                int n = defaultNode(t, node);
                Syntax.Pages range = Syntax.pages(pages, t.pageCount());
                Integer txEntry = null;
                if (txDest != null) {
                    int route = Syntax.route(txDest, t.maxNodes());
                    if (route < 0 && (localCopy || ack)) {
                        throw McctlException.usage("--local-copy and --ack need a destination, not --tx off");
                    }
                    txEntry = route < 0 ? 0 : TxPct.encode(true, localCopy, ack, TxPct.destKind(route), TxPct.dest(route));
                    if (route >= 0 && TxPct.destKind(route) == Regs.DEST_KIND_MULTICAST && t.cluster().multicastGroup(TxPct.dest(route)) == 0) {
                        throw McctlException.usage("unknown destination: multicast group " + TxPct.dest(route)
                                + " has no members; define it first (mcctl apply with a groups: section)");
                    }
                } else if (localCopy || ack) {
                    throw McctlException.usage("--local-copy and --ack belong to a transmit entry: add --tx DEST");
                }
                if (irq && !Boolean.TRUE.equals(rx)) {
                    throw McctlException.usage("--irq needs --rx");
                }
                if ((read || atomic || countIrq) && rx == null) {
                    throw McctlException.usage("--read, --atomic and --count-irq belong to the receive entry: add --rx or --no-rx");
                }
                Long rxEntry = rx == null ? null : RxPct.encode(rx, irq, read, atomic, countIrq);
                List<PctWrite> batch = new ArrayList<>();
                for (int p = range.first(); p <= range.last(); p++) {
                    batch.add(new PctWrite(n, p, txEntry, rxEntry));
                }
                Targets.writePct(t, batch);
                report(this, t, n, range, "set");
            }
            return Exit.OK;
        }
    }

    static void report(Base cmd, AdapterView t, int node, Syntax.Pages range, String verb) {
        if (cmd.json()) {
            List<Object> rows = new ArrayList<>();
            for (int p = range.first(); p <= range.last(); p++) {
                rows.add(entryJson(node, p, t.txPct(node, p), t.rxPct(node, p)));
            }
            cmd.printJson(Json.obj("fabric", t.location(), verb, rows));
        } else {
            int tx = t.txPct(node, range.first());
            long rx = t.rxPct(node, range.first());
            cmd.out().printf("node %d pages %s: %s; tx %s, rx %s%n", node, range, verb, TxPct.describe(tx), RxPct.describe(rx));
            cmd.out().flush();
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true,
            description = "Disable the PCT entries of PAGES on one node (both tables unless --tx-only or --rx-only).",
            footerHeading = "%nExamples:%n", footer = {"  mcctl pct clear --node 1 100-103", "  mcctl pct clear --node 1 100 --rx-only"})
    static final class Clear extends Base {
        @Option(names = "--node", description = "Whose PCT (required on the soft fabric).")
        Integer node;

        @Parameters(paramLabel = "PAGES", description = "N, FIRST-LAST or FIRST+COUNT.")
        String pages;

        @Option(names = "--tx-only", description = "Clear only the transmit entries.")
        boolean txOnly;

        @Option(names = "--rx-only", description = "Clear only the receive entries.")
        boolean rxOnly;

        @Override
        public Integer call() {
            if (txOnly && rxOnly) {
                throw McctlException.usage("--tx-only and --rx-only exclude each other");
            }
            try (AdapterView t = openView()) {
                int n = defaultNode(t, node);
                Syntax.Pages range = Syntax.pages(pages, t.pageCount());
                List<PctWrite> batch = new ArrayList<>();
                for (int p = range.first(); p <= range.last(); p++) {
                    batch.add(new PctWrite(n, p, rxOnly ? null : 0, txOnly ? null : 0L));
                }
                Targets.writePct(t, batch);
                report(this, t, n, range, "cleared");
            }
            return Exit.OK;
        }
    }
}
