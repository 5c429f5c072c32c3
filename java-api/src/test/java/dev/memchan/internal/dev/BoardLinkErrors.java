package dev.memchan.internal.dev;

import dev.memchan.Fabric;
import dev.memchan.IncomingMapping;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import dev.memchan.conformance.SingleSenderCheck;
import dev.memchan.conformance.TestBackend;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Memory Channel's rule 3 without link retry, on the co-simulated board (native/tests/board_java.sh):
 * a sender stores data words and a flag (the rule-1 pattern of the conformance suite) while the
 * device process flips bits on the cable; with {@code CTRL.RETRY_EN} off the receiving adapter
 * discards everything after the first bad frame. The receiver checks that what it was given is a
 * prefix of what was sent in order (never a flag ahead of its data), that {@link Fabric#errorsSince}
 * reports the error, and, after the harness wrote {@code CTRL.ERR_RESET}, that delivery resumes.
 *
 * <p>The roles are two processes on two adapters; the shell coordinates them through files:
 * <pre>
 * java ... BoardLinkErrors recv dev:/dev/memchan1 KEY N DIR   READY, PREFIX, RESULT ..., then RECOVERED
 * java ... BoardLinkErrors send dev:/dev/memchan0 KEY N DIR   READY, waits for DIR/go, PREFIX; waits for
 *                                                             DIR/flips, DONE; waits for DIR/again
 * </pre>
 * The first {@link #PREFIX} stores cross a clean cable: the receiver says PREFIX once it has seen them,
 * and the harness turns the bit flips on and writes DIR/flips only then, so what the receiver keeps is a
 * prefix of at least that many stores (with flips from the start, the cluster agents' heartbeats met
 * the first flip before the sender's first store and the prefix was empty).
 * Lines on stdout; exit 0 when the role did its part (the verdict is the shell's, from RESULT).
 */
public final class BoardLinkErrors {
    /** A flag value past every sequence number: the store that shows delivery resumed. */
    private static final long RESUMED = Long.MAX_VALUE;
    /** Stores sent before the harness turns the bit flips on. */
    static final int PREFIX = 1000;

    private BoardLinkErrors() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        String location = args[1];
        long key = Long.decode(args[2]);
        int n = Integer.parseInt(args[3]);
        Path dir = Path.of(args[4]);
        // the cluster's timing of this deployment (memchan.test.failureTimeoutMs), as the conformance
        // suite's nodes have it: with the library's 800 ms the two processes on the board's one vCPU
        // can judge each other dead while they start
        try (Fabric f = Fabric.open(location, TestBackend.joinOptions())) {
            Region r = f.allocate(key, 2L * f.pageSize(), 0660);
            int flag = f.pageSize();
            if (role.equals("send")) {
                send(f, r.attachTransmit(Route.broadcast(), false), flag, n, dir);
            } else {
                receive(f, r.attachReceive(false), flag, n, dir);
            }
            // The link from the sender was dark until ERR_RESET: leave without waiting for the
            // cluster service's goodbye (the harness tears the guest down next).
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void awaitFile(Path p, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!Files.exists(p)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + p + " within " + limit);
            }
            Thread.sleep(10);
        }
    }

    private static void send(Fabric f, OutgoingMapping out, int flag, int n, Path dir) throws InterruptedException {
        say("READY node=" + f.nodeId());
        awaitFile(dir.resolve("go"), Duration.ofMinutes(10));
        for (int i = 1; i <= n; i++) {
            out.putLong(8L * (i % SingleSenderCheck.WORDS), i);
            out.putLongRelease(flag, i);
            if (i == PREFIX) {
                say("PREFIX sent=" + i);
                awaitFile(dir.resolve("flips"), Duration.ofMinutes(10));
            }
        }
        say("DONE sent=" + n);
        awaitFile(dir.resolve("again"), Duration.ofMinutes(10));
        out.putLongRelease(flag, RESUMED);
        say("SENT resumed");
    }

    private static void receive(Fabric f, IncomingMapping in, int flag, int n, Path dir) throws Exception {
        long errorsBefore = f.errorCount();
        say("READY node=" + f.nodeId() + " errors=" + errorsBefore);
        // sleep, not spin, until the harness starts the run: on a one-vCPU guest a spinning receiver
        // halves the CPU the sender's JVM has to start and attach
        awaitFile(dir.resolve("go"), Duration.ofMinutes(10));
        long last = 0;
        long observations = 0;
        long violations = 0;
        String example = "";
        long quiet = Duration.ofSeconds(20).toNanos(); // no progress this long after an error: delivery stopped
        long progressAt = System.nanoTime();
        long deadline = progressAt + Duration.ofMinutes(10).toNanos();
        while (last < n) {
            long seen = in.getLongAcquire(flag);
            long now = System.nanoTime();
            if (seen < last) {
                violations++;
                example = "flag went back from " + last + " to " + seen;
            } else if (seen > last) {
                observations++;
                String violation = SingleSenderCheck.violation(in, last, seen); // every store before the flag
                if (violation != null) {
                    violations++;
                    example = violation;
                }
                if (last < PREFIX && seen >= PREFIX) {
                    say("PREFIX seen=" + seen);
                }
                last = seen;
                progressAt = now;
            } else if ((now - progressAt > quiet && f.errorsSince(errorsBefore)) || now > deadline) {
                break;
            }
            Thread.onSpinWait();
        }
        say("RESULT last=" + last + " sent=" + n + " observations=" + observations + " violations=" + violations
                + " errors_since=" + f.errorsSince(errorsBefore) + " error_count=" + f.errorCount()
                + (example.isEmpty() ? "" : " example: " + example));
        Files.createFile(dir.resolve("result"));
        // the harness mends the cable, writes ERR_RESET and tells the sender to store once more
        long wait = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (in.getLongAcquire(flag) != RESUMED) {
            if (System.nanoTime() > wait) {
                say("STUCK flag=" + in.getLongAcquire(flag) + " error_count=" + f.errorCount());
                return;
            }
            Thread.sleep(1);
        }
        say("RECOVERED error_count=" + f.errorCount());
    }
}
