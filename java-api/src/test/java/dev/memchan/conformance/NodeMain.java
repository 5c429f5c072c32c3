package dev.memchan.conformance;

import dev.memchan.ClusterBarrier;
import dev.memchan.ClusterEvent;
import dev.memchan.ClusterLockSet;
import dev.memchan.ClusterTime;
import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.IncomingMapping;
import dev.memchan.LockKind;
import dev.memchan.MemchanException;
import dev.memchan.Notifier;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import dev.memchan.admin.DirectoryEntry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One node of a conformance scenario, in its own JVM. Usage: {@code NodeMain SCENARIO LOCATION ARGS...}.
 * Prints READY when attached, waits for GO where the scenario is coordinated, prints OK/DONE lines
 * with results, FAIL on a violated rule (exit 1) and "ERROR kind message" on a MemchanException (exit 3).
 */
public final class NodeMain {
    private static final BufferedReader STDIN = new BufferedReader(new InputStreamReader(System.in));

    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
            System.out.flush();
            System.exit(0);
        } catch (MemchanException e) {
            System.out.println("ERROR " + e.kind() + " " + e.getMessage());
            System.out.flush();
            System.exit(3);
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace();
            System.out.flush();
            System.exit(1);
        }
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The test's next line, or null when it went away. */
    static String nextLine() throws IOException {
        return STDIN.readLine();
    }

    static void await(String word) throws IOException {
        String line;
        while ((line = STDIN.readLine()) != null) {
            if (line.equals(word)) {
                return;
            }
            if (line.equals("QUIT")) {
                System.exit(0);
            }
        }
        System.exit(0); // the test went away
    }

    /** A SIGSEGV in the JVM, as HotSpot reports its own crashes (fatal-error banner, exit 134). */
    private static void crashTheJvm() {
        java.lang.foreign.MemorySegment.NULL.reinterpret(8).get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
    }

    static void fail(String why) {
        say("FAIL " + why);
        System.exit(1);
    }

    private static void run(String[] a) throws Exception {
        String scenario = a[0];
        if (scenario.equals("net-namespace")) { // where a launcher put the node: its network namespace
            say("NETNS " + Files.readSymbolicLink(Path.of("/proc/self/ns/net")));
            await("QUIT");
            return;
        }
        String location = a[1];
        if (scenario.equals("jvm-crash")) { // NodeProcess's restart rule, tested: a JVM crash before start
            // MARKER: crash only if it does not exist yet (creating it); "always": crash every time
            Path marker = Path.of(a[1]);
            if (a[1].equals("always") || java.nio.file.Files.notExists(marker)) {
                if (!a[1].equals("always")) {
                    java.nio.file.Files.createFile(marker);
                }
                crashTheJvm();
            }
            say("READY restarted");
            await("QUIT");
            return;
        }
        if (scenario.equals("native-check")) { // run without --enable-native-access
            try (Fabric _ = Fabric.open(location, TestBackend.joinOptions())) {
                say("OK opened without native access?!");
            }
            return;
        }
        Integer onNode = Integer.getInteger(NodeProcess.NODE);
        FabricOptions options = scenario.equals("claim") || scenario.equals("evictable") ? TestBackend.joinOptions().withNodeId(Integer.parseInt(a[2]))
                : onNode != null ? TestBackend.joinOptions().withNodeId(onNode) : TestBackend.joinOptions();
        try (Fabric f = Fabric.open(location, options)) {
            switch (scenario) {
                case "order-send" -> orderSend(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
                case "order-recv" -> orderRecv(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
                case "order-send-steps" -> orderSendSteps(f, Long.parseLong(a[2]));
                case "iriw-send" -> iriwSend(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]));
                case "iriw-recv" -> iriwRecv(f, Long.parseLong(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]), Path.of(a[5]));
                case "barrier" -> barrier(f, Long.parseLong(a[2]), Long.parseLong(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]));
                case "lock-count" -> lockCount(f, Long.parseLong(a[2]), Long.parseLong(a[3]), Integer.parseInt(a[4]), lockKind(a, 5));
                case "hold-lock" -> holdLock(f, Long.parseLong(a[2]), Long.parseLong(a[3]), lockKind(a, 4));
                case "watch-death" -> watchDeath(f, Long.parseLong(a[2]), Long.parseLong(a[3]), Integer.parseInt(a[4]));
                case "notify-wait" -> notifyWait(f, Long.parseLong(a[2]));
                case "notify-signal" -> notifySignal(f, Long.parseLong(a[2]), Integer.parseInt(a[3]));
                case "claim" -> {
                    say("JOINED node=" + f.nodeId());
                    await("QUIT");
                }
                case "evictable" -> evictable(f, location, options);
                case "events" -> events(f);
                case "attach" -> attach(f, Long.parseLong(a[2]), a[3]);
                case "proc-alloc" -> procAlloc(f, Long.parseLong(a[2]), Long.parseLong(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]));
                case "survive" -> survive(f, Long.parseLong(a[2]), Long.parseLong(a[3]));
                case "clock-read" -> clockRead(f);
                default -> {
                    if (!RemoteScenarios.run(f, a) && !DataNotifyScenarios.run(f, a)) {
                        fail("unknown scenario " + scenario);
                    }
                }
            }
        }
    }

    /**
     * A node declared dead while it lives (the test stops it past the failure timeout): "JOINED node=N
     * incarnation=I"; on its EVICTED event "EVICTED node=N incarnation=I failed=true", then "FENCED kind"
     * (a cluster operation of the old Fabric refused), then, reopened, "REJOINED node=N incarnation=J".
     */
    private static void evictable(Fabric f, String location, FabricOptions options) throws Exception {
        int me = f.nodeId();
        say("JOINED node=" + me + " incarnation=" + f.admin().view().member(me).incarnation());
        ClusterEvent e;
        do {
            e = f.awaitClusterEvent(Duration.ofDays(1));
        } while (e == null || e.type() != ClusterEvent.Type.EVICTED);
        say("EVICTED node=" + e.node() + " incarnation=" + e.incarnation() + " failed=" + e.failed());
        try {
            f.allocate(0x5EED_0000_0000_0001L, f.pageSize(), 0600);
            say("FAIL a cluster operation of an evicted node succeeded");
        } catch (MemchanException x) {
            say("FENCED " + x.kind());
        }
        f.close();
        try (Fabric again = Fabric.open(location, options)) {
            say("REJOINED node=" + again.nodeId() + " incarnation=" + again.admin().view().member(again.nodeId()).incarnation());
            await("QUIT");
        }
    }

    /**
     * Stays a member and reports every cluster event it sees ("EVENT type node=N incarnation=I failed=B")
     * until QUIT (the failure detector under load, {@link DetectorLoadMain}).
     */
    private static void events(Fabric f) throws Exception {
        Thread quit = Thread.ofPlatform().daemon().start(() -> {
            try {
                await("QUIT");
            } catch (IOException ignored) {
                // the test went away
            }
            System.exit(0);
        });
        say("READY node=" + f.nodeId());
        while (quit.isAlive()) {
            ClusterEvent e = f.awaitClusterEvent(Duration.ofSeconds(1));
            if (e != null) {
                say("EVENT " + e.type() + " node=" + e.node() + " incarnation=" + e.incarnation() + " failed=" + e.failed());
            }
        }
    }

    /** Reads the cluster time on every READ: "TIME time bound offset unit", until QUIT. */
    private static void clockRead(Fabric f) throws IOException {
        say("READY");
        while (true) {
            await("READ");
            ClusterTime t = f.clusterTime();
            say("TIME " + t.time() + " " + t.bound() + " " + t.offset() + " " + t.unit());
        }
    }

    /** Single-sender rule: data word (i mod 512) = i, then flag = i; 2 pages. */
    private static void orderSend(Fabric f, long key, int n) throws IOException {
        Region r = f.allocate(key, 2L * f.pageSize(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), false);
        say("READY node=" + f.nodeId());
        await("GO");
        int flag = f.pageSize();
        for (int i = 1; i <= n; i++) {
            out.putLong(8L * (i % SingleSenderCheck.WORDS), i);
            out.putLongRelease(flag, i);
        }
        f.ackBarrier();
        say("DONE sent=" + n);
        await("QUIT");
    }

    /**
     * order-send's pattern in steps the test paces: on "SEND k" the next k stores, then "SENT last=i"; on "END" the
     * acknowledge barrier, then "DONE sent=i".
     */
    private static void orderSendSteps(Fabric f, long key) throws IOException {
        Region r = f.allocate(key, 2L * f.pageSize(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), false);
        say("READY node=" + f.nodeId());
        int flag = f.pageSize();
        long i = 0;
        String line;
        while ((line = STDIN.readLine()) != null && !line.equals("QUIT")) {
            if (line.startsWith("SEND ")) {
                for (long last = i + Long.parseLong(line.substring(5)); i < last; ) {
                    i++;
                    out.putLong(8L * (i % SingleSenderCheck.WORDS), i);
                    out.putLongRelease(flag, i);
                }
                say("SENT last=" + i);
            } else if (line.equals("END")) {
                f.ackBarrier();
                say("DONE sent=" + i);
            }
        }
    }

    private static void orderRecv(Fabric f, long key, int n) throws IOException {
        Region r = f.allocate(key, 2L * f.pageSize(), 0660);
        IncomingMapping in = r.attachReceive(false);
        say("READY node=" + f.nodeId());
        await("GO"); // as iriwRecv: no spinning while the sender sets up
        int flag = f.pageSize();
        long last = 0;
        long observations = 0;
        long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(120)).toNanos();
        while (last < n) {
            long seen = in.getLongAcquire(flag);
            if (seen < last) {
                fail("flag went back from " + last + " to " + seen);
            }
            if (seen > last) {
                observations++;
                String violation = SingleSenderCheck.violation(in, last, seen); // every store before the flag
                if (violation != null) {
                    fail(violation);
                }
                last = seen;
            }
            if (System.nanoTime() > deadline) {
                fail("stalled at " + last);
            }
        }
        say("OK observations=" + observations);
        await("QUIT");
    }

    /**
     * Multi-sender rule, IRIW shape: sender s stores 1, 2, 3, ... into word s of one broadcast page, at
     * least n stores and on until the test says STOP (once both receivers have seen enough of the two
     * senders' stores in flight together); then DONE last=(its last value).
     */
    private static void iriwSend(Fabric f, long key, int word, int n) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), false);
        say("READY node=" + f.nodeId());
        await("GO");
        StopLine stop = StopLine.listen();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        // no bound of its own: it stores until the test's STOP, and ends when the test goes away (StopLine)
        long i = 0;
        while (i < n || stop.line == null) {
            out.putLongRelease(8L * word, ++i);
            for (int s = rnd.nextInt(64); s > 0; s--) {
                Thread.onSpinWait();
            }
            if ((i & 255) == 0) {
                // where the four processes share fewer CPUs, the other sender and the receivers run now
                Thread.yield();
            }
        }
        say("DONE last=" + i);
        await("QUIT");
    }

    /**
     * Reads word {@code first} then the other, and records each new (first, second) pair (to a file at the
     * end). Says READING once it reads (the test starts the senders only then), ENOUGH once {@code enough}
     * of its observations had both words moved since the one before (both senders' stores arriving while it
     * reads: the pairs that can expose a disagreement), PROGRESS at most once a second until then, and fails
     * when no new such observation comes within the stall bound, or when neither word changes within it; on
     * "STOP last0 last1" it reads on until it has seen both senders' last stores, writes the file and says OK.
     */
    private static void iriwRecv(Fabric f, long key, int first, int enough, Path out) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0660);
        IncomingMapping in = r.attachReceive(false);
        say("READY node=" + f.nodeId());
        // spin only once everyone is set up: on a board guest's one vCPU two spinning readers starved
        // the senders' region allocation until their cluster lock timed out
        await("GO");
        StopLine stop = StopLine.listen();
        long[] obs = new long[4_000_000];
        long a0 = in.getLongVolatile(8L * first);
        long b0 = in.getLongVolatile(8L * (1 - first));
        obs[0] = a0;
        obs[1] = b0;
        int count = 2;
        long both = 0;
        boolean enoughSaid = false;
        say("READING " + a0 + " " + b0);
        // Bounds on progress, not on the whole run: a busy machine slows the observations without
        // stopping them; a lost or stuck store stops them. The test extends its wait at each PROGRESS.
        Duration stallWithin = TestBackend.allowance(Duration.ofSeconds(90));
        long stallNanos = stallWithin.toNanos();
        long lastBoth = System.nanoTime();    // the last new observation in which both words moved
        long lastChange = lastBoth;           // the last change of either word
        long lastSaid = lastBoth;
        long lastA = Long.MAX_VALUE;
        long lastB = Long.MAX_VALUE;
        for (long iteration = 1; ; iteration++) {
            if ((iteration & 1023) == 0) {
                // between two observations (never between the two reads of one): where the four processes
                // share fewer CPUs, both senders run now, so that the next pair can have both words moved
                Thread.yield();
            }
            long a = in.getLongVolatile(8L * first);
            long b = in.getLongVolatile(8L * (1 - first));
            long now = System.nanoTime();
            if (a != a0 || b != b0) {
                lastChange = now;
                if (count < obs.length) {
                    if (a != a0 && b != b0) {
                        both++;
                        lastBoth = now;
                        if (!enoughSaid && now - lastSaid > 1_000_000_000L) {
                            say("PROGRESS both=" + both + " pairs=" + count / 2);
                            lastSaid = now;
                        }
                    }
                    obs[count++] = a;
                    obs[count++] = b;
                }
                a0 = a;
                b0 = b;
            }
            if (!enoughSaid && both >= enough) {
                say("ENOUGH both=" + both + " pairs=" + count / 2);
                enoughSaid = true;
            }
            if (lastA == Long.MAX_VALUE && stop.line != null) {
                String[] w = stop.line.split(" "); // STOP last0 last1
                lastA = Long.parseLong(w[1 + first]);
                lastB = Long.parseLong(w[2 - first]);
            }
            if (a >= lastA && b >= lastB) {
                break;
            }
            if (!enoughSaid && now - lastBoth > stallNanos) {
                fail("too few observations in which both words moved: " + both + " of " + enough + ", none new for "
                        + stallWithin.toSeconds() + " s (" + count / 2 + " pairs, last " + a + "," + b + ")");
            }
            if (now - lastChange > stallNanos) {
                fail("stalled at " + a + "," + b + ": neither word changed for " + stallWithin.toSeconds() + " s");
            }
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
            for (int i = 0; i < count; i += 2) {
                w.println(obs[i] + " " + obs[i + 1]);
            }
        }
        say("OK pairs=" + count / 2 + " both=" + both);
        await("QUIT");
    }

    /** A daemon thread waiting for the test's line starting with STOP while the main thread spins. */
    private static final class StopLine {
        volatile String line;

        static StopLine listen() {
            StopLine s = new StopLine();
            Thread t = new Thread(() -> {
                try {
                    String l;
                    while ((l = STDIN.readLine()) != null) {
                        if (l.startsWith("STOP")) {
                            s.line = l;
                            return;
                        }
                        if (l.equals("QUIT")) {
                            System.exit(0);
                        }
                    }
                } catch (IOException ignored) {
                    // as EOF
                }
                System.exit(0); // the test went away
            }, "stop-listener");
            t.setDaemon(true);
            t.start();
            return s;
        }
    }

    /** Barrier: after await, every party's stores made before it arrived are visible. */
    private static void barrier(Fabric f, long dataKey, long barrierKey, int parties, int rounds) throws IOException {
        int words = 64;
        Region r = f.allocate(dataKey, 8L * words * f.maxNodes(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
        IncomingMapping in = r.attachReceive(false);
        ClusterBarrier b = ClusterBarrier.open(f, barrierKey, parties);
        say("READY node=" + f.nodeId());
        await("GO");
        int me = f.nodeId();
        int[] peers = new int[f.maxNodes()];
        for (int round = 1; round <= rounds; round++) {
            for (int w = 0; w < words; w++) {
                out.putLong(8L * (me * words + w), (long) round * 1_000_000 + w);
            }
            b.await(TestBackend.allowance(Duration.ofSeconds(60)));
            int seen = 0;
            for (int node = 0; node < f.maxNodes(); node++) {
                if (in.getLong(8L * node * words) < (long) round * 1_000_000) {
                    continue; // not a party
                }
                seen++;
                for (int w = 0; w < words; w++) {
                    long v = in.getLong(8L * (node * words + w));
                    if (v != (long) round * 1_000_000 + w) {
                        fail("round " + round + ": node " + node + " word " + w + " = " + v + " after the barrier");
                    }
                }
                peers[node]++;
            }
            if (seen != parties) {
                fail("round " + round + ": " + seen + " parties' stores visible after the barrier, expected " + parties);
            }
            b.await(TestBackend.allowance(Duration.ofSeconds(60))); // nobody writes round+1 while others still check round
        }
        say("OK rounds=" + rounds);
        await("QUIT");
    }

    /** Mutual exclusion: a counter incremented by plain load/store only under the cluster lock. */
    private static void lockCount(Fabric f, long lockKey, long dataKey, int iterations, LockKind kind) throws IOException {
        ClusterLockSet locks = f.lockSet(lockKey, 1, kind == null ? f.defaultLockKind() : kind);
        Region r = f.allocate(dataKey, f.pageSize(), 0660);
        OutgoingMapping out = r.attachTransmit(Route.broadcast(), true);
        IncomingMapping in = r.attachReceive(false);
        say("READY node=" + f.nodeId());
        await("GO");
        long me = ProcessHandle.current().pid(); // the owner mark: distinct for processes of one node too
        for (int i = 0; i < iterations; i++) {
            locks.acquire(0);
            out.putLongRelease(8, me);
            while (in.getLongVolatile(8) != me) { // our own store, back through the local copy
                Thread.onSpinWait();
            }
            long c = in.getLongVolatile(0);
            out.putLongRelease(0, c + 1);
            while (in.getLongVolatile(0) != c + 1) {
                Thread.onSpinWait();
            }
            if (in.getLongVolatile(8) != me) {
                fail("pid " + me + " on node " + f.nodeId() + ": another process entered the critical section (owner pid "
                        + in.getLongVolatile(8) + ")");
            }
            locks.release(0);
        }
        f.ackBarrier(); // every increment of this node has landed everywhere
        say("DONE iterations=" + iterations);
        await("REPORT");
        say("COUNT " + in.getLongVolatile(0));
        await("QUIT");
    }

    /**
     * One of several processes per node: its own region (2 pages, its key in word 0) and a common one
     * where, after GO, it stores its pid in word {@code index}; every process's word must show up and its
     * own region must be intact.
     */
    private static void procAlloc(Fabric f, long commonKey, long ownKey, int index, int total) throws IOException {
        Region own = f.allocate(ownKey, 2L * f.pageSize(), 0660);
        OutgoingMapping ownOut = own.attachTransmit(Route.broadcast(), true);
        IncomingMapping ownIn = own.attachReceive(false);
        ownOut.putLongRelease(0, ownKey);
        Region common = f.allocate(commonKey, f.pageSize(), 0660);
        OutgoingMapping out = common.attachTransmit(Route.broadcast(), true);
        IncomingMapping in = common.attachReceive(false);
        f.ackBarrier();
        say("READY node=" + f.nodeId() + " first=" + own.firstPage() + " pages=" + own.pageCount());
        await("GO");
        // after GO, when every process has attached: on a board a store reaches the nodes that have
        // their node ID when it is made (docs/driver.md, "receive pages"), not nodes that get one later
        out.putLongRelease(8L * index, ProcessHandle.current().pid());
        f.ackBarrier();
        long deadline = System.nanoTime() + TestBackend.allowance(Duration.ofSeconds(30)).toNanos();
        for (int i = 0; i < total; i++) {
            while (in.getLongAcquire(8L * i) == 0) {
                if (System.nanoTime() > deadline) {
                    fail("process " + i + "'s word never arrived in the common region");
                }
                Thread.onSpinWait();
            }
        }
        if (ownIn.getLongAcquire(0) != ownKey) {
            fail("own region overwritten: word 0 = " + ownIn.getLongAcquire(0));
        }
        say("OK members=" + f.members());
        await("QUIT");
    }

    /**
     * A process that outlives another of its node: its own region (key in word 0) and the lock set;
     * after GO it takes lock 0 (held by the victim until it was killed), checks its region and reports.
     */
    private static void survive(Fabric f, long lockKey, long ownKey) throws IOException {
        ClusterLockSet locks = f.lockSet(lockKey, 1);
        Region own = f.allocate(ownKey, f.pageSize(), 0660);
        OutgoingMapping out = own.attachTransmit(Route.broadcast(), true);
        IncomingMapping in = own.attachReceive(false);
        out.putLongRelease(0, ownKey);
        f.ackBarrier();
        say("READY node=" + f.nodeId());
        await("GO");
        locks.acquire(0, TestBackend.allowance(Duration.ofSeconds(30)));
        int holder = locks.holder(0);
        locks.release(0);
        if (in.getLongAcquire(0) != ownKey) {
            fail("own region changed: word 0 = " + in.getLongAcquire(0));
        }
        say("OK node=" + f.nodeId() + " holder=" + holder + " members=" + f.members());
        await("QUIT");
    }

    /** The lock kind named by optional argument {@code i} (BID or CAS), else the fabric's default. */
    private static LockKind lockKind(String[] a, int i) {
        return a.length > i ? LockKind.valueOf(a[i]) : null;
    }

    private static void holdLock(Fabric f, long lockKey, long regionKey, LockKind kind) throws IOException {
        ClusterLockSet locks = f.lockSet(lockKey, 1, kind == null ? f.defaultLockKind() : kind);
        Region r = f.allocate(regionKey, f.pageSize(), 0660);
        r.attachTransmit(Route.broadcast(), true);
        r.attachReceive(false);
        locks.acquire(0);
        say("HOLDING node=" + f.nodeId());
        await("QUIT");
    }

    /** Waits for the victim's LEAVE, then takes its lock and checks the directory was cleaned. */
    private static void watchDeath(Fabric f, long lockKey, long regionKey, int victim) throws Exception {
        ClusterLockSet locks = f.lockSet(lockKey, 1);
        Region r = f.allocate(regionKey, f.pageSize(), 0660);
        r.attachReceive(false);
        if (locks.tryAcquire(0)) {
            fail("lock 0 acquired while node " + victim + " holds it");
        }
        say("READY node=" + f.nodeId() + " holder=" + locks.holder(0));
        awaitLeaveThenAcquire(f, locks, victim);
        int bit = 1 << victim;
        for (DirectoryEntry e : f.admin().view().regions()) {
            if (((e.users() | e.txNodes() | e.rxNodes() | e.txLoopback()) & bit) != 0) {
                fail(String.format("region 0x%x still lists dead node %d", e.key(), victim));
            }
        }
        if ((f.members() & bit) != 0) {
            fail("dead node " + victim + " still a member");
        }
        say("CLEAN");
        await("QUIT");
    }

    /** Waits for {@code victim}'s LEAVE (says LEAVE ... at=ms), then takes lock 0 it held (says ACQUIRED at=ms). */
    static void awaitLeaveThenAcquire(Fabric f, ClusterLockSet locks, int victim) throws InterruptedException {
        Duration window = TestBackend.allowance(Duration.ofSeconds(30));
        long deadline = System.nanoTime() + window.toNanos();
        while (true) {
            ClusterEvent e = f.awaitClusterEvent(Duration.ofSeconds(1));
            if (e != null && e.type() == ClusterEvent.Type.LEAVE && e.node() == victim) {
                say("LEAVE node=" + e.node() + " failed=" + e.failed() + " at=" + System.currentTimeMillis());
                break;
            }
            if (System.nanoTime() > deadline) {
                fail("no LEAVE event for node " + victim + " within " + window.toSeconds() + " s");
            }
        }
        locks.acquire(0, TestBackend.allowance(Duration.ofSeconds(10)));
        say("ACQUIRED at=" + System.currentTimeMillis());
        locks.release(0);
    }

    private static void notifyWait(Fabric f, long key) throws IOException {
        Notifier n = Notifier.waiter(f, key);
        long before = n.current();
        say("READY node=" + f.nodeId());
        long t0 = System.nanoTime();
        // from READY: the signaller's JVM still has to start and join before it signals
        Duration window = TestBackend.allowance(Duration.ofSeconds(30));
        long v = n.await(before, window);
        long waited = (System.nanoTime() - t0) / 1_000_000;
        if (v == before) {
            fail("not woken within " + window.toSeconds() + " s");
        }
        say("WOKE value=" + v + " sleeps=" + n.sleepCount() + " waitedMs=" + waited);
        await("QUIT");
    }

    private static void notifySignal(Fabric f, long key, int dest) throws IOException {
        Notifier n = Notifier.signaller(f, key, Route.node(dest));
        say("READY node=" + f.nodeId());
        await("GO");
        n.signal();
        say("SIGNALLED");
        await("QUIT");
    }

    /** attach KEY tx|rx: allocate (or join) and attach; used for permission checks. */
    private static void attach(Fabric f, long key, String how) throws IOException {
        Region r = f.allocate(key, f.pageSize(), 0640);
        if (how.equals("tx")) {
            r.attachTransmit(Route.broadcast(), true);
        } else {
            r.attachReceive(false);
        }
        say("OK attached " + how);
        await("QUIT");
    }
}
