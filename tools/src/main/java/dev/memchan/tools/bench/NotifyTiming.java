package dev.memchan.tools.bench;

import dev.memchan.DataNotifier;
import dev.memchan.Fabric;
import dev.memchan.Notifier;
import dev.memchan.Route;

/**
 * Notification rate, in one thread driving two nodes of one soft fabric: a notification with data (payload and
 * sender into the receiver's queue, {@link DataNotifier}) against the payload-less {@link Notifier} (a word and the
 * receive interrupt). Each is counted from the signal to the receiver holding it: batches of {@value #BATCH}
 * signals, then the receiver takes the batch ({@code poll}) or reads the word ({@code current}). Both raise the
 * receiver's interrupt on every signal (a futex wake with nobody asleep), as a sender cannot know whether the
 * receiver sleeps.
 */
public final class NotifyTiming {
    /** Signals per batch: below a queue's capacity, so that none overflows. */
    static final int BATCH = 100;

    private NotifyTiming() {
    }

    /** ns per notification {receiver's node, sender's node}: {with data, payload-less}, after as long a warm-up. */
    public static double[] againstPayloadless(Fabric receiver, Fabric sender, long key, int iterations) {
        double data;
        double plain;
        try (DataNotifier in = DataNotifier.receiver(receiver, key); DataNotifier out = DataNotifier.sender(sender, key)) {
            data = timed(iterations, () -> {
                for (int i = 0; i < BATCH; i++) {
                    out.signal(receiver.nodeId(), i);
                }
                for (int i = 0; i < BATCH; i++) {
                    if (in.poll() == DataNotifier.NONE) {
                        throw new IllegalStateException("a notification of the batch is missing");
                    }
                }
            });
        }
        try (Notifier waiter = Notifier.waiter(receiver, key + 1); Notifier signaller = Notifier.signaller(sender, key + 1, Route.node(receiver.nodeId()))) {
            long[] seen = {waiter.current()};
            plain = timed(iterations, () -> {
                for (int i = 0; i < BATCH; i++) {
                    signaller.signal();
                }
                long now = waiter.current();
                if (now == seen[0]) {
                    throw new IllegalStateException("the batch's notification word did not change");
                }
                seen[0] = now;
            });
        }
        return new double[]{data, plain};
    }

    private static double timed(int iterations, Runnable batch) {
        int batches = Math.max(1, iterations / BATCH);
        double ns = 0;
        for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
            long t0 = System.nanoTime();
            for (int b = 0; b < batches; b++) {
                batch.run();
            }
            ns = (System.nanoTime() - t0) / ((double) batches * BATCH);
        }
        return ns;
    }
}
