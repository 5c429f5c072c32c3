package dev.memchan.conformance;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The negative control of the IRIW conformance check: it must catch a disagreement it is shown. */
class IriwCheckTest {
    @Test
    void receiversThatDisagreeAreCaught() {
        // X (word 0 first) saw A=5 with B=2: A's 5th store before B's 3rd.
        long[][] xs = {{0, 0}, {3, 1}, {5, 2}, {7, 6}};
        // Y (word 1 first) saw B=3 with A=4: B's 3rd store before A's 5th. They disagree.
        long[][] ys = {{0, 0}, {1, 1}, {3, 4}, {8, 9}};
        String v = IriwCheck.violation(xs, ys);
        assertNotNull(v, "a fabricated disagreement went unnoticed");
        assertTrue(v.contains("X saw (A=5, B=2)"), v);
    }

    @Test
    void receiversThatAgreeAreNot() {
        // One global order: A1 B1 A2 A3 B2 B3 A4 A5 B4 ... X and Y each saw a consistent cut of it.
        long[][] xs = {{0, 0}, {1, 1}, {3, 1}, {5, 3}, {7, 6}};
        long[][] ys = {{0, 0}, {1, 1}, {3, 3}, {4, 5}, {8, 9}};
        assertNull(IriwCheck.violation(xs, ys));
    }

    @Test
    void onlyObservationsWhereBothWordsMovedCount() {
        long[][] obs = {{0, 0}, {1, 0}, {2, 0}, {3, 1}, {3, 2}, {5, 4}, {6, 4}};
        assertEquals(2, IriwCheck.bothMoved(obs)); // (3, 1) after (2, 0) and (5, 4) after (3, 2)
        assertEquals(0, IriwCheck.bothMoved(new long[][]{{7, 7}}), "the starting point is not a move");
        assertEquals(0, IriwCheck.bothMoved(new long[0][]));
    }
}
