package dev.memchan.conformance;

import dev.memchan.IncomingMapping;

/**
 * The single-sender rule's check, shared by the conformance suite (NodeMain order-recv) and the
 * board's no-retry test (BoardLinkErrors): the sender stores store i into data word i mod 512 and
 * then i into the flag, so once the flag shows {@code seen}, every data word written at
 * {@code last + 1 .. seen} (at most the last 512) must hold that store or a later one.
 */
public final class SingleSenderCheck {
    /** Data words of the pattern. */
    public static final int WORDS = 512;

    private SingleSenderCheck() {
    }

    /** Null if every store before flag {@code seen} is visible, else what was not. */
    public static String violation(IncomingMapping in, long last, long seen) {
        for (long j = Math.max(last + 1, seen - (WORDS - 1)); j <= seen; j++) {
            long v = in.getLong(8L * (j % WORDS));
            if (v < j) {
                return "flag " + seen + " visible but data word " + (j % WORDS) + " = " + v + " < " + j;
            }
        }
        return null;
    }
}
