package dev.memchan.internal.cluster;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.PctWrite;
import dev.memchan.admin.StaticCarveOuts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Operator PCT writes as one transaction with the region directory, run under the cluster lock
 * ({@link ClusterService#writePct}), so a program allocating at the same moment cannot slip in between:
 * <ol>
 *   <li>the view validates the batch against the directory as it is now and writes it (or nothing);</li>
 *   <li>the pages that now hold an entry become static carve-outs in the directory, and carve-outs whose
 *       pages no visible node holds any more are freed (docs/mcctl.md, "Static pages and the directory");</li>
 *   <li>when the directory refuses (full), the PCT goes back as it was.</li>
 * </ol>
 */
final class PctTransaction {
    private PctTransaction() {
    }

    static void run(StaticCarveOuts carveOuts, AdapterView view, List<PctWrite> batch) {
        List<PctWrite> before = new ArrayList<>();
        if (view.problems(batch).isEmpty()) {
            for (PctWrite w : batch) {
                before.add(new PctWrite(w.node(), w.page(), view.txPct(w.node(), w.page()), view.rxPct(w.node(), w.page())));
            }
        }
        view.write(batch); // validates the whole batch again: on a problem it throws, changing nothing
        try {
            for (Map.Entry<Integer, List<int[]>> e : heldRuns(view, batch).entrySet()) {
                for (int[] run : e.getValue()) {
                    carveOuts.reserve(e.getKey(), run[0], run[1] - run[0]);
                }
            }
            carveOuts.release(visibleMask(view), (n, p) -> holds(view, n, p));
        } catch (MemchanException e) {
            view.write(before.reversed());
            throw e;
        }
    }

    private static boolean holds(AdapterView view, int node, int page) {
        return view.txPct(node, page) != 0 || view.rxPct(node, page) != 0;
    }

    private static int visibleMask(AdapterView view) {
        int mask = 0;
        for (int n : view.adapters()) {
            mask |= 1 << n;
        }
        return mask;
    }

    /** Per node, the runs [first, end) of the batch's pages that hold an entry after the write. */
    private static Map<Integer, List<int[]>> heldRuns(AdapterView view, List<PctWrite> batch) {
        Map<Integer, TreeSet<Integer>> pages = new TreeMap<>();
        for (PctWrite w : batch) {
            if (holds(view, w.node(), w.page())) {
                pages.computeIfAbsent(w.node(), k -> new TreeSet<>()).add(w.page());
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

    /** INVALID_ARGUMENT unless {@code view} is of {@code location}, the member's fabric. */
    static void checkSameFabric(AdapterView view, String location) {
        if (!view.location().equals(location)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "the view is of " + view.location() + ", this member of "
                    + location + ": a PCT transaction writes the member's fabric; nothing was changed");
        }
    }
}
