package dev.memchan.internal;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.admin.PctWrite;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

import static dev.memchan.layout.Regs.SYS_PAGES;

/**
 * The one rule set for operator PCT writes, on every backend: a batch is checked as a whole (against the
 * fabric and against itself) and written only when nothing is wrong; an entry the adapter refuses all the
 * same puts back what the batch wrote before it.
 */
public final class PctRules {
    private PctRules() {
    }

    /** A PCT entry's place in a batch of writes. */
    private record NodePage(int node, int page) {
    }

    /**
     * Every reason {@code batch} would be refused, empty when none: node in range and writable here, page
     * inside the window and neither a system page nor a page of a region allocated in the directory (the
     * directory's attach path owns those entries), no entry named twice with different values, the entries'
     * encodings as the adapter takes them, and one route per network page over the state the whole batch
     * would leave on the visible adapters.
     */
    public static List<String> problems(PctTables t, List<PctWrite> batch) {
        List<String> out = new ArrayList<>();
        Map<NodePage, Integer> pendingTx = new HashMap<>();
        Map<NodePage, Long> pendingRx = new HashMap<>();
        List<DirectoryEntry> regions = t.regions();
        for (PctWrite w : batch) {
            if (w.node() < 0 || w.node() >= t.maxNodes()) {
                out.add("node ID " + w.node() + " out of range 0.." + (t.maxNodes() - 1) + " for " + t.location());
                continue;
            }
            if (w.page() < 0 || w.page() >= t.pageCount()) {
                out.add("page " + w.page() + " is outside the window 0.." + (t.pageCount() - 1) + " of " + t.location());
                continue;
            }
            String node = t.nodeProblem(w.node());
            if (node != null) {
                out.add(node);
                continue;
            }
            if (w.page() < SYS_PAGES) {
                out.add("page " + w.page() + " is a system page (0.." + (SYS_PAGES - 1) + ": cluster lock, membership, directory); "
                        + "the cluster service owns its PCT entries");
                continue;
            }
            String owned = DirectoryEntry.ownerProblem(regions, w.page());
            if (owned != null) {
                out.add(owned);
                continue;
            }
            NodePage k = new NodePage(w.node(), w.page());
            if (w.tx() != null) {
                Integer before = pendingTx.put(k, w.tx());
                if (before != null && !before.equals(w.tx())) {
                    out.add("page " + w.page() + " of node " + w.node() + " is set twice, to " + TxPct.describe(before) + " and to "
                            + TxPct.describe(w.tx()));
                }
            }
            if (w.rx() != null) {
                Long before = pendingRx.put(k, w.rx());
                if (before != null && !before.equals(w.rx())) {
                    out.add("receive entry of page " + w.page() + " of node " + w.node() + " is set twice with different values");
                }
                String problem = RxPct.problem(w.rx());
                if (problem != null) {
                    out.add("receive PCT entry for page " + w.page() + ": " + problem);
                }
            }
        }
        if (!out.isEmpty()) {
            return out;
        }
        for (Map.Entry<NodePage, Integer> e : pendingTx.entrySet()) {
            String problem = txProblem(t, e.getKey().node(), e.getKey().page(), e.getValue(), pendingTx);
            if (problem != null) {
                out.add(problem);
            }
        }
        return out;
    }

    /** The entry's encoding on its adapter, then one route per page among the visible adapters after the batch. */
    private static String txProblem(PctTables t, int writer, int page, int entry, Map<NodePage, Integer> pendingTx) {
        String problem = t.txProblem(writer, entry);
        if (problem != null) {
            return "transmit PCT entry for page " + page + ": " + problem;
        }
        return routeProblem(page, entry, writer, t.maxNodes(), n -> {
            Integer pending = pendingTx.get(new NodePage(n, page));
            return pending != null ? pending : t.visible(n) ? t.txPct(n, page) : 0;
        });
    }

    /**
     * One route per network page: why {@code writer}'s transmit entry {@code entry} for {@code page} conflicts
     * with another node's enabled entry ({@code txOfNode}: 0 for a node whose entry is not known here), or null.
     */
    public static String routeProblem(int page, int entry, int writer, int maxNodes, IntUnaryOperator txOfNode) {
        if (!TxPct.enabled(entry)) {
            return null;
        }
        for (int n = 0; n < maxNodes; n++) {
            int other = n == writer ? 0 : txOfNode.applyAsInt(n);
            if (TxPct.enabled(other) && TxPct.route(other) != TxPct.route(entry)) {
                return "page " + page + ": node " + n + " already routes it to " + TxPct.describe(other)
                        + "; one network page has one route (wanted " + TxPct.describe(entry) + ")";
            }
        }
        return null;
    }

    /**
     * Validates the whole batch ({@link #problems}), then writes it entry by entry; INVALID_ARGUMENT, writing
     * nothing, on any problem. When the adapter refuses an entry all the same, every entry written before it
     * is put back as it was and the refusal passed on.
     */
    public static void write(PctTables t, List<PctWrite> batch) {
        List<String> problems = problems(t, batch);
        if (!problems.isEmpty()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, problems.getFirst()
                    + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more problems)" : "") + "; nothing was changed");
        }
        List<PctWrite> undo = new ArrayList<>();
        try {
            for (PctWrite w : batch) {
                undo.add(new PctWrite(w.node(), w.page(), t.txPct(w.node(), w.page()), t.rxPct(w.node(), w.page())));
                if (w.tx() != null) {
                    t.writeTx(w.node(), w.page(), w.tx());
                }
                if (w.rx() != null) {
                    t.writeRx(w.node(), w.page(), w.rx());
                }
            }
        } catch (RuntimeException e) {
            for (PctWrite u : undo.reversed()) {
                t.writeTx(u.node(), u.page(), u.tx());
                t.writeRx(u.node(), u.page(), u.rx());
            }
            throw e;
        }
    }
}
