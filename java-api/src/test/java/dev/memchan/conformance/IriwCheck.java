package dev.memchan.conformance;

import java.util.Arrays;

/**
 * The multi-sender (IRIW) rule's checks on what two receivers recorded: senders A and B store increasing
 * values into words 0 and 1; receiver X records (word0, word1), reading word 0 first, receiver Y records
 * (word1, word0), reading word 1 first; each records a pair whenever it differs from the one before.
 */
final class IriwCheck {
    private IriwCheck() {
    }

    /**
     * Observations in which both words moved since the receiver's previous observation, i.e. both senders
     * stored while this receiver was reading: only such pairs, with both stores in flight, can show the
     * receivers disagreeing. The first observation (the receiver's starting point) never counts.
     */
    static long bothMoved(long[][] observations) {
        long n = 0;
        for (int i = 1; i < observations.length; i++) {
            if (observations[i][0] != observations[i - 1][0] && observations[i][1] != observations[i - 1][1]) {
                n++;
            }
        }
        return n;
    }

    /**
     * Null if X's and Y's observations agree on one order of A's and B's stores, else an example of the
     * disagreement. X's (k, j): A's store k came before B's store j+1. Y's (j', k'): B's j' came before A's
     * k'+1. Violation: j' >= j+1 and k'+1 <= k. Sorts {@code ys}.
     */
    static String violation(long[][] xs, long[][] ys) {
        // for each j', the smallest k' seen with that or a larger j'
        Arrays.sort(ys, (p, q) -> Long.compare(p[0], q[0]));
        long[] suffixMinK = new long[ys.length + 1];
        suffixMinK[ys.length] = Long.MAX_VALUE;
        for (int i = ys.length - 1; i >= 0; i--) {
            suffixMinK[i] = Math.min(suffixMinK[i + 1], ys[i][1]);
        }
        long violations = 0;
        String example = null;
        for (long[] o : xs) {
            long k = o[0];
            long j = o[1];
            int lo = lowerBound(ys, j + 1);
            if (lo < ys.length && suffixMinK[lo] + 1 <= k) {
                violations++;
                example = "X saw (A=" + k + ", B=" + j + "), Y saw B >= " + (j + 1) + " with A = " + suffixMinK[lo];
            }
        }
        return violations == 0 ? null : violations + " of X's " + xs.length + " observations, e.g. " + example;
    }

    private static int lowerBound(long[][] sorted, long key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid][0] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
