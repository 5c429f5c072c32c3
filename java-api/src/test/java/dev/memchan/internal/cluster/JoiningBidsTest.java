package dev.memchan.internal.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JoiningBidsTest {
    private static final long BOUND = 3_200_000_000L;

    @Test
    void aJoinersBidIsNeverStaleAtFirstSightNorWithinTheBound() {
        JoiningBids j = new JoiningBids(4);
        assertFalse(j.stale(2, 77, 1_000, BOUND), "first sight");
        assertFalse(j.stale(2, 77, 1_000 + BOUND, BOUND), "at the bound");
    }

    @Test
    void theSameBidPastTheBoundIsStale() {
        JoiningBids j = new JoiningBids(4);
        j.stale(2, 77, 1_000, BOUND);
        assertTrue(j.stale(2, 77, 1_001 + BOUND, BOUND));
    }

    @Test
    void aNewBidOrAWithdrawalStartsTheTimeAgain() {
        JoiningBids j = new JoiningBids(4);
        j.stale(2, 77, 1_000, BOUND);
        assertFalse(j.stale(2, 78, 1_001 + BOUND, BOUND), "another bid (a new incarnation) starts anew");
        assertFalse(j.stale(2, 0, 2_000 + BOUND, BOUND), "withdrawn");
        assertFalse(j.stale(2, 78, 3_000 + BOUND, BOUND), "bid again after a withdrawal: first sight");
        assertTrue(j.stale(2, 78, 3_001 + 2 * BOUND, BOUND));
    }

    @Test
    void nodesAreTimedApart() {
        JoiningBids j = new JoiningBids(4);
        j.stale(1, 5, 0, BOUND);
        j.stale(3, 5, BOUND, BOUND);
        assertTrue(j.stale(1, 5, BOUND + 1, BOUND));
        assertFalse(j.stale(3, 5, BOUND + 1, BOUND));
    }
}
