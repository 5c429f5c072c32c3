package dev.memchan.tools.mcctl;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.admin.PctWrite;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Operator PCT writes ({@code pct set|clear}, {@code apply}) as one transaction with the region
 * directory, under the cluster lock:
 * <ol>
 *   <li>the batch is validated against the directory as it is now (no region program allocated may
 *       own a page it sets), so a program allocating at the same moment cannot slip in between;</li>
 *   <li>the PCT entries are written;</li>
 *   <li>the pages that now hold an entry become static carve-outs in the directory (so the
 *       allocator never hands them to a region), and carve-outs whose pages no node holds any more
 *       are freed (docs/mcctl.md, "Static pages and the directory").</li>
 * </ol>
 * Two mcctl processes changing the PCT at once are serialized by the same lock. Taking it needs a
 * cluster member: mcctl joins for the transaction (a free node on the soft fabric; the adapter's node
 * on a device, refused while a program is that node's member).
 */
final class PctTransaction {
    private PctTransaction() {
    }

    /** Joins for the transaction, writes the batch, leaves. */
    static void write(Target t, List<PctWrite> batch) {
        try (Fabric member = Targets.join(t.location())) {
            write(member, t, batch);
        }
    }

    /** The transaction with {@code member} (a node of this process on {@code t}'s fabric) taking the lock. */
    static void write(Fabric member, Target t, List<PctWrite> batch) {
        member.admin().transaction(carveOuts -> {
            List<String> problems = t.pctProblems(batch);
            if (!problems.isEmpty()) {
                throw McctlException.usage(problems.getFirst() + (problems.size() > 1 ? " (and " + (problems.size() - 1)
                        + " more problems)" : "") + "; nothing was changed");
            }
            List<PctWrite> before = new ArrayList<>();
            for (PctWrite w : batch) {
                before.add(new PctWrite(w.node(), w.page(), t.txPct(w.node(), w.page()), t.rxPct(w.node(), w.page())));
            }
            t.writePct(batch);
            try {
                for (Map.Entry<Integer, List<int[]>> e : heldRuns(t, batch).entrySet()) {
                    for (int[] run : e.getValue()) {
                        carveOuts.reserve(e.getKey(), run[0], run[1] - run[0]);
                    }
                }
                carveOuts.release(visibleMask(t), (n, p) -> holds(t, n, p));
            } catch (MemchanException e) { // the directory refused (full): the PCT goes back as it was
                t.writePct(before.reversed());
                throw e;
            }
            return null;
        });
    }

    private static boolean holds(Target t, int node, int page) {
        return t.txPct(node, page) != 0 || t.rxPct(node, page) != 0;
    }

    private static int visibleMask(Target t) {
        int mask = 0;
        for (int n : t.adapters()) {
            mask |= 1 << n;
        }
        return mask;
    }

    /** Per node, the runs [first, end) of the batch's pages that hold an entry after the write. */
    private static Map<Integer, List<int[]>> heldRuns(Target t, List<PctWrite> batch) {
        Map<Integer, java.util.TreeSet<Integer>> pages = new TreeMap<>();
        for (PctWrite w : batch) {
            if (holds(t, w.node(), w.page())) {
                pages.computeIfAbsent(w.node(), k -> new java.util.TreeSet<>()).add(w.page());
            }
        }
        Map<Integer, List<int[]>> runs = new TreeMap<>();
        pages.forEach((node, set) -> {
            List<int[]> list = new ArrayList<>();
            int[] run = null;
            for (int p : set) {
                if (run != null && p == run[1]) {
                    run[1]++;
                } else {
                    run = new int[]{p, p + 1};
                    list.add(run);
                }
            }
            runs.put(node, list);
        });
        return runs;
    }
}
