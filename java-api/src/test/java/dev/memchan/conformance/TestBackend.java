package dev.memchan.conformance;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.Region;
import dev.memchan.RemoteAccess;
import dev.memchan.RemoteMapping;
import dev.memchan.admin.FabricAdmin;
import dev.memchan.layout.Regs;
import org.junit.jupiter.api.Assumptions;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The backend the conformance suite runs on, chosen by the system property
 * {@code memchan.test.backend}: {@code soft} (default: a fresh soft fabric per test), {@code shadow+shm:}
 * (a fresh soft fabric per test, seen through {@link ShadowBackend}: transmit grants are shadows, as on a
 * network backend) or a location such as {@code dev:/dev/memchan0} (the kernel driver; the suite then runs
 * unchanged against it).
 */
public final class TestBackend {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final List<String> CREATED = new ArrayList<>();
    private static int counter;
    /** The system property of {@link #timeScale()}. */
    public static final String TIME_SCALE = "memchan.test.timeScale";
    /** The system property of {@link #countScale()}. */
    public static final String COUNT_SCALE = "memchan.test.countScale";
    /** The system property of {@link #nodes()}. */
    public static final String NODES = "memchan.test.nodes";
    /** The system property of {@link #failureTimeout()}. */
    public static final String FAILURE_TIMEOUT = "memchan.test.failureTimeoutMs";
    /**
     * The JUnit tag of the tests whose subject is what the processes of one node share among themselves
     * (the node's claim, its member slot's hand-over, one node's regions and locks between its processes):
     * the library and the driver's code common to every device, which the fabric between nodes adds nothing
     * to that the suite's other tests do not cover. The co-simulated hub board leaves them out (each starts
     * up to six JVMs on its one vCPU); every other run, the 8-adapter ivshmem guest among them, runs them.
     */
    public static final String PROCESSES_OF_ONE_NODE = "processes-of-one-node";
    /** Nodes of the soft fabric each test creates (and of the 8-adapter guest in native/test.sh). */
    private static final int SOFT_NODES = 8;

    private TestBackend() {
    }

    public static String property() {
        String p = System.getProperty("memchan.test.backend", "soft");
        return p.isBlank() ? "soft" : p;
    }

    public static boolean isSoft() {
        return property().equals("soft");
    }

    /** The property's value for {@link ShadowBackend} over fresh soft fabrics. */
    public static final String SHADOW = ShadowBackendProvider.SCHEME + ":";

    /** Whether each test gets fresh soft fabrics ({@link #newFabric}): {@code soft} and {@value #SHADOW}. */
    public static boolean freshFabrics() {
        return isSoft() || property().equals(SHADOW);
    }

    private static String remoteRefusal;
    private static boolean remoteProbed;

    /**
     * Why this backend cannot do remote read and atomics (its UNSUPPORTED message), or null when it can:
     * probed once per JVM with a real remote read of a page this node grants READ on (the soft fabric and
     * the ivshmem driver serve it; a driver backend without a remote path refuses with UNSUPPORTED), and an
     * attach at another home (a board serves its own node's regions only: UNSUPPORTED there).
     */
    public static synchronized String remoteUnsupported() {
        if (!remoteProbed) {
            remoteProbed = true;
            if (!freshFabrics()) {
                try (Fabric f = Fabric.open(property(), joinOptions());
                     Region r = f.allocate(key(), f.pageSize(), 0600)) {
                    r.attachReceive(false, RemoteAccess.READ);
                    try (RemoteMapping m = r.attachRemote(f.nodeId())) {
                        m.getLongAcquire(0);
                    }
                    // another home (one of the test's nodes, so that it answers): PERMISSION (not homed there)
                    // where remote mappings of other homes are served, UNSUPPORTED where not (docs/driver.md)
                    int other = (f.nodeId() + 1) % nodes();
                    try {
                        r.attachRemote(other).close();
                        throw new IllegalStateException("node " + other + " served a remote mapping of a region it does not home");
                    } catch (MemchanException e) {
                        if (e.kind() != MemchanException.Kind.PERMISSION) {
                            throw e;
                        }
                    }
                } catch (MemchanException e) {
                    if (e.kind() != MemchanException.Kind.UNSUPPORTED) {
                        throw e;
                    }
                    remoteRefusal = e.getMessage();
                }
            }
        }
        return remoteRefusal;
    }

    /**
     * Whether {@code f} is a hardware adapter (CAPS without SOFT, not ucx://), whose remote operations are counted at the
     * home as docs/driver.md says for it: a remote mapping of a region homed at another node is checked by
     * requests the home serves (a read per page) or refuses (a read and a fetch-and-add of 0, two refusals, for
     * a page with neither grant), and a misaligned word is refused before it is sent (not counted there).
     */
    public static boolean isHardware(Fabric f) {
        return localCopyLags(f) && !isUcx();
    }

    /**
     * Whether {@code f}'s local copy comes back after the store (CAPS without SOFT: a board's loopback through the
     * link or hub, the ucx:// backend's through the hub) rather than being the receiver's memory at once.
     */
    public static boolean localCopyLags(Fabric f) {
        return (f.admin().adapter().readRegister(Regs.REG_CAPS) & Regs.CAPS_SOFT_MASK) == 0;
    }

    /** Whether the suite runs on ucx://, whose remote operations the home host's soft fabric serves and counts. */
    public static boolean isUcx() {
        return property().startsWith("ucx:");
    }

    /**
     * A fabric location for one test; on the soft fabric a new 4 MiB, 8-node fabric (with {@value #SHADOW}
     * the same, named by the shadow's scheme).
     */
    public static synchronized String newFabric(String tag) {
        if (!freshFabrics()) {
            return property();
        }
        String name = "t" + ProcessHandle.current().pid() + "-" + tag + "-" + (counter++);
        FabricAdmin.create("shm:" + name, FabricOptions.defaults().withGeometry(4 << 20, 4096, SOFT_NODES));
        CREATED.add(name);
        return (isSoft() ? "shm:" : SHADOW) + name;
    }

    /** Removes the soft fabrics this JVM created. */
    public static synchronized void cleanup() {
        for (String name : CREATED) {
            try {
                FabricAdmin.remove("shm:" + name);
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        CREATED.clear();
    }

    /** A random key, so tests never collide on a shared (device) fabric. */
    public static long key() {
        return RANDOM.nextLong() & 0x0FFF_FFFF_FFFF_FFFFL;
    }

    /**
     * The factor by which the suite's allowances for starting node processes and for their progress
     * are multiplied: system property {@code memchan.test.timeScale} (default 1; node processes inherit
     * it). A JVM starts and runs several times slower in a guest under QEMU TCG, which native/test.sh
     * runs the suite in. It never stretches a bound the suite asserts (failure detection within 1 s,
     * a woken receiver within 20 s of the signal), only the allowances around them (the 500 ms of
     * scheduling slack on the detection bound).
     */
    public static double timeScale() {
        return factor(TIME_SCALE, 1, 100, "1..100");
    }

    /** System property {@code name} as a number in {@code [min, max]} (default 1), or a clear error. */
    private static double factor(String name, double min, double max, String range) {
        String p = System.getProperty(name, "1");
        double scale;
        try {
            scale = Double.parseDouble(p);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number in " + range + ", not '" + p + "'", e);
        }
        if (!(scale >= min && scale <= max)) {
            throw new IllegalArgumentException(name + " must lie in " + range + ", not " + p);
        }
        return scale;
    }

    /**
     * How many nodes the backend offers the suite, each joinable by one process: on the soft fabric the
     * {@value #SOFT_NODES} of the fabric {@link #newFabric} creates (fewer if the property below says so,
     * to run the small casts on the host); on a device location the system property
     * {@code memchan.test.nodes} (default {@value #SOFT_NODES}), set by whoever cabled the adapters
     * (native/test.sh: 8 ivshmem adapters, or 2 RTL adapters of the co-simulated board).
     * A test sizes its cast to this (at most what it was written for) or skips by its own assumption
     * when the rule it checks needs more nodes than there are.
     */
    public static int nodes() {
        int n = Integer.getInteger(NODES, SOFT_NODES);
        if (n < 2 || n > (freshFabrics() ? SOFT_NODES : 32)) {
            throw new IllegalArgumentException(NODES + " must lie in 2.." + (freshFabrics() ? SOFT_NODES : 32) + ", not " + n);
        }
        return n;
    }

    /** Skips the calling test unless the backend has {@code needed} nodes. */
    public static void assumeNodes(int needed, String why) {
        Assumptions.assumeTrue(nodes() >= needed,
                () -> "needs " + needed + " nodes (" + why + "); this backend has " + nodes());
    }

    /**
     * The factor by which the suite's repetition counts are multiplied: system property
     * {@code memchan.test.countScale} in 0.001..1, default 1. The co-simulated board (every store a
     * round trip through QEMU into a simulator) runs the same checks with fewer repetitions; the
     * checks themselves, and every bound they assert, stay as they are.
     */
    public static double countScale() {
        return factor(COUNT_SCALE, 0.001, 1, "0.001..1");
    }

    /** A repetition count, {@code base} times {@link #countScale()}, at least {@code floor}. */
    public static int count(int base, int floor) {
        return Math.max(floor, (int) Math.round(base * countScale()));
    }

    /** An allowance for process start-up or progress, {@code base} times {@link #timeScale()}. */
    public static Duration allowance(Duration base) {
        return Duration.ofMillis(Math.round(base.toMillis() * timeScale()));
    }

    /**
     * The cluster's failure timeout, in milliseconds: system property {@code memchan.test.failureTimeoutMs}
     * (default the library's, {@value Regs#SYS_DEFAULT_FAILURE_TIMEOUT_MS}; node processes inherit it). It is
     * the deployment's configuration, as an operator sets it for a cluster ({@link FabricOptions#withTiming}),
     * not an allowance: every process of a test joins with it, and the tests assert against it (failure
     * detection within it plus two heartbeat periods). A co-simulated board, whose node processes share one
     * TCG vCPU, configures a longer one (native/tests/board_java.sh says why).
     */
    public static Duration failureTimeout() {
        String p = System.getProperty(FAILURE_TIMEOUT, "" + Regs.SYS_DEFAULT_FAILURE_TIMEOUT_MS);
        long ms;
        try {
            ms = Long.parseLong(p);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(FAILURE_TIMEOUT + " must be a number of milliseconds, not '" + p + "'", e);
        }
        if (ms < 2L * Regs.SYS_DEFAULT_HEARTBEAT_MS || ms > 600_000) {
            throw new IllegalArgumentException(FAILURE_TIMEOUT + " must lie in " + 2L * Regs.SYS_DEFAULT_HEARTBEAT_MS
                    + "..600000 (at least two heartbeat periods), not " + p);
        }
        return Duration.ofMillis(ms);
    }

    /** The heartbeat period every process of a test joins with: the library's default. */
    public static Duration heartbeatPeriod() {
        return Duration.ofMillis(Regs.SYS_DEFAULT_HEARTBEAT_MS);
    }

    /** Options of a process joining the test's fabric: the cluster's timing ({@link #failureTimeout()}). */
    public static FabricOptions joinOptions() {
        return FabricOptions.defaults().withCreate(false).withTiming(heartbeatPeriod(), failureTimeout());
    }
}
