package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static dev.memchan.layout.Regs.DEST_KIND_BROADCAST;
import static dev.memchan.layout.Regs.SF_DEFAULT_FILE_SIZE;
import static dev.memchan.layout.Regs.SF_DEFAULT_MAX_NODES;
import static dev.memchan.layout.Regs.SF_DEFAULT_PAGE_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The standby hub: a primary ({@link UcxHubMain} process) SIGKILLed under a stream of stores from two hosts, its
 * standby (another process) taking over, node processes ({@link UcxNodeMain}) resuming there; and the standby's bad
 * inputs against hubs in this JVM.
 */
class UcxStandbyTest {
    private static final Map<String, String> LOOPBACK_TCP = Map.of("TLS", "tcp", "NET_DEVICES", "lo");
    private static final int BROADCAST_LOCAL = TxPct.encode(true, true, false, DEST_KIND_BROADCAST, 0);
    /** Stores per sender. */
    private static final int STORES = 2000;
    private final List<UcxPeer> processes = new ArrayList<>();
    private final List<UcxPeer> hubs = new ArrayList<>();
    private String fabric;

    @TempDir
    Path secrets;

    @AfterEach
    void stopProcessesAndRemoveTheirHostFiles() throws IOException, InterruptedException {
        for (UcxPeer hub : hubs) {
            hub.kill();
            hub.close();
        }
        for (UcxPeer n : processes) {
            n.close();
        }
        try (var files = Files.list(Path.of("/dev/shm"))) {
            for (Path f : files.toList()) {
                if (fabric != null && f.getFileName().toString().contains("ucx-" + fabric + "-")) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private Path secret(String name) {
        Path file = secrets.resolve(name);
        if (!Files.exists(file)) {
            JoinSecret.create(file);
        }
        return file;
    }

    /** A hub process at a free port (a standby when {@code standbyOf} is a port); its port. */
    private int hubProcess(String name, Integer standbyOf, List<String> jvmOptions) throws IOException, InterruptedException {
        return hubProcess(name, standbyOf, jvmOptions, 0);
    }

    /** A hub process at {@code port} (0: a free one); its port. */
    private int hubProcess(String name, Integer standbyOf, List<String> jvmOptions, int port) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("127.0.0.1:" + port, fabric, "--secret", secret("secret").toString()));
        if (standbyOf != null) {
            args.addAll(List.of("--standby-of", "127.0.0.1:" + standbyOf));
        }
        UcxPeer hub = UcxPeer.launch(name, UcxHubMain.class, jvmOptions, args);
        hubs.add(hub);
        String listening = hub.answer(standbyOf == null ? "hub listening at" : "standby hub listening at");
        return Integer.parseInt(listening.substring(listening.lastIndexOf(':') + 1));
    }

    private List<String> nodeOptions(String host) {
        return List.of("-D" + UcxBackend.HOST_PROPERTY + "=" + host, "-D" + UcxBackend.SECRET_PROPERTY + "=" + secret("secret"));
    }

    private UcxPeer process(String name, String host) throws IOException, InterruptedException {
        UcxPeer p = UcxPeer.start(name, UcxNodeMain.class, nodeOptions(host));
        processes.add(p);
        return p;
    }

    private UcxPeer node(String name, String host, String at) throws IOException, InterruptedException {
        UcxPeer p = process(name, host);
        p.request("join " + at + " -1", "node");
        return p;
    }

    /**
     * The primary serves five node processes on two hosts, then its standby joins (it gets the state as it stands).
     * Two senders (a on host h1, b on h2) store 1..{@link #STORES} into their own broadcast word; once a third
     * process (e, h1) reads a's word at a quarter of that, the primary is SIGKILLed. With {@code watch}, a reader on
     * each host (c, d) reads the two words in opposite orders meanwhile. After the stores, each sender stores one more
     * value and a barrier from each must complete. Returns what broke the rules: two orders, a sender's stores out of
     * order, a value missing at a host, a host whose stream grew by other than the write messages that reached it, errors
     * that do not match what was lost.
     */
    private List<String> storesThroughATakeover(boolean standbySkipsSequenced, boolean watch) throws Exception {
        fabric = (standbySkipsSequenced ? "k" : "t") + ProcessHandle.current().pid();
        List<UcxPeer> started = new ArrayList<>();
        for (String[] nameHost : List.of(new String[]{"a", "h1"}, new String[]{"b", "h2"}, new String[]{"c", "h1"}, new String[]{"d", "h2"},
                new String[]{"e", "h1"})) { // their JVMs start beside the hubs'
            started.add(UcxPeer.launch(nameHost[0], UcxNodeMain.class, nodeOptions(nameHost[1]), List.of()));
            processes.add(started.getLast());
        }
        int primary = hubProcess("primary", null, List.of());
        int standby;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            standby = free.getLocalPort(); // the standby starts there once the fabric is in use
        }
        String at = "ucx://127.0.0.1:" + primary + ",127.0.0.1:" + standby + "/" + fabric;
        for (UcxPeer p : started) {
            p.answer("ready");
            p.request("join " + at + " -1", "node");
        }
        UcxPeer a = started.get(0);
        UcxPeer b = started.get(1);
        UcxPeer c = started.get(2);
        UcxPeer d = started.get(3);
        UcxPeer e = started.get(4);
        a.request("tx 30 1 " + BROADCAST_LOCAL, "ok");
        b.request("tx 31 1 " + BROADCAST_LOCAL, "ok");
        for (UcxPeer r : List.of(c, d, e)) {
            r.request("rx 30 2 " + RxPct.encode(true, false), "ok");
        }
        a.request("store 8 7 7", "ok"); // the image the standby gets when it joins is not empty
        a.request("barrier", "ok");
        hubProcess("standby", primary, standbySkipsSequenced ? List.of("-D" + UcxHub.TEST_SKIP_SEQUENCED + "=true") : List.of(), standby);
        b.request("barrier", "ok");
        long h1Before = Long.parseLong(c.request("applied", "applied"));
        long h2Before = Long.parseLong(d.request("applied", "applied"));
        long writesBefore = writes(a, b);
        long x = 0;
        long y = 4096;
        if (watch) {
            c.send("watch " + x + " " + y + " " + (STORES + 1));
            d.send("watch " + y + " " + x + " " + (STORES + 1));
        }
        a.send("store 0 1 " + STORES);
        b.send("store 0 1 " + STORES);
        long seen = 0;
        for (int i = 0; i < 1_000_000 && seen < STORES / 4; i++) {
            seen = Long.parseLong(e.request("load 0", "value"));
        }
        hubs.getFirst().kill();

        List<String> broken = new ArrayList<>();
        for (UcxPeer s : List.of(a, b)) {
            String stored = s.line();
            if (!stored.equals("ok")) {
                broken.add("a sender's stores through the takeover: " + stored);
            }
            String last = s.ask("store 0 " + (STORES + 1) + " " + (STORES + 1));
            String barrier = s.ask("barrier");
            if (!last.equals("ok") || !barrier.equals("ok")) {
                broken.add("a store and a barrier after the takeover: " + last + ", " + barrier);
            }
        }
        if (watch) {
            List<long[]> xFirst = pairs(watched(c, broken), false);
            List<long[]> yFirst = pairs(watched(d, broken), true);
            broken.addAll(outOfOrder(xFirst));
            broken.addAll(outOfOrder(yFirst));
            for (long[] p : xFirst) {
                for (long[] q : yFirst) {
                    if (q[1] > p[1] && q[0] < p[0]) {
                        broken.add("c saw x=" + p[0] + " before y=" + (p[1] + 1) + ", d saw y=" + q[1] + " before x=" + (q[0] + 1) + ": two orders");
                    }
                }
            }
        }
        long lost = 0;
        for (UcxPeer p : List.of(a, b, c, d, e)) {
            lost += Long.parseLong(p.request("errors", "errors"));
        }
        for (UcxPeer r : List.of(c, d)) {
            for (long word : List.of(x, y)) {
                String value = r.request("load " + word, "value");
                if (!value.equals(Long.toString(STORES + 1))) {
                    broken.add("word " + word + " at " + (r == c ? "h1" : "h2") + " is " + value + ", not the last store " + (STORES + 1));
                }
            }
        }
        long sent = writes(a, b) - writesBefore; // pushes made while the hub is behind travel combined, one message
        long h1Grew = Long.parseLong(c.request("applied", "applied")) - h1Before;
        long h2Grew = Long.parseLong(d.request("applied", "applied")) - h2Before;
        if (h1Grew != h2Grew || h1Grew + lost != sent) {
            broken.add("the streams grew by " + h1Grew + " (h1) and " + h2Grew + " (h2) with " + lost + " errors counted, for " + sent
                    + " write messages sent: each applied once at each host, or counted as lost");
        }
        return broken;
    }

    /** The WRITE messages {@code a} and {@code b} sent so far. */
    private static long writes(UcxPeer a, UcxPeer b) throws Exception {
        return Long.parseLong(a.request("writes", "writes")) + Long.parseLong(b.request("writes", "writes"));
    }

    /** The primary SIGKILLed mid-stream: the standby takes over, nothing is applied twice, out of order, or lost. */
    @Test
    void aStandbyTakesOverWhenThePrimaryIsKilledUnderAStreamOfStores() throws Exception {
        List<String> broken = storesThroughATakeover(false, true);
        assertTrue(broken.isEmpty(), String.join("\n", broken));
    }

    /**
     * The negative control: a standby that acknowledges the primary's sequenced messages without keeping them takes
     * over with its hosts' streams behind theirs: the same check must find what it broke.
     */
    @Test
    void aStandbyThatSkipsReplicationFailsTheCheck() throws Exception {
        List<String> broken = storesThroughATakeover(true, false);
        System.out.println("the negative control's takeover broke:\n  " + String.join("\n  ", broken));
        assertTrue(broken.stream().anyMatch(b -> b.startsWith("word ") || b.startsWith("the streams grew")),
                "a standby without the sequenced messages passed the takeover check: " + broken);
    }

    /** A watcher's pairs, or none when it did not see both words reach the last store (what it saw goes to {@code broken}). */
    private static String watched(UcxPeer watcher, List<String> broken) throws InterruptedException {
        String answer = watcher.line();
        if (answer.startsWith("pairs ")) {
            return answer.substring("pairs ".length());
        }
        broken.add("a reader: " + answer);
        return "0:0";
    }

    /** "a:b,..." as pairs {x, y}; {@code swapped} when the reader read y first. */
    private static List<long[]> pairs(String text, boolean swapped) {
        List<long[]> out = new ArrayList<>();
        for (String p : text.split(",")) {
            long[] v = Arrays.stream(p.split(":")).mapToLong(Long::parseLong).toArray();
            out.add(swapped ? new long[]{v[1], v[0]} : v);
        }
        return out;
    }

    private static List<String> outOfOrder(List<long[]> pairs) {
        List<String> broken = new ArrayList<>();
        for (int i = 1; i < pairs.size(); i++) {
            if (pairs.get(i)[0] < pairs.get(i - 1)[0] || pairs.get(i)[1] < pairs.get(i - 1)[1]) {
                broken.add("a sender's stores out of its order: " + Arrays.toString(pairs.get(i - 1)) + " then " + Arrays.toString(pairs.get(i)));
            }
        }
        return broken;
    }

    private static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /**
     * A standby with another secret, a standby of a standby, a second standby, a standby at its primary's own
     * address: each refused with its reason, and the primary goes on as before (its census, its one standby, a node
     * joining and storing across the hubs after).
     */
    @Test
    void badStandbysAreRefusedAndChangeNothing() throws Exception {
        fabric = "b" + ProcessHandle.current().pid();
        JoinSecret secret = JoinSecret.load(secret("secret"));
        try (UcxHub primary = new UcxHub(loopback(0), fabric, secret, SF_DEFAULT_FILE_SIZE, SF_DEFAULT_PAGE_SIZE, SF_DEFAULT_MAX_NODES,
                LOOPBACK_TCP)) {
            UcxHub.Census before = primary.census(Duration.ofSeconds(30));
            MemchanException wrongSecret = assertThrows(MemchanException.class, () -> UcxHub.standby(loopback(0), fabric,
                    JoinSecret.load(secret("other")), primary.address(), LOOPBACK_TCP));
            assertEquals(MemchanException.Kind.PERMISSION, wrongSecret.kind(), wrongSecret.getMessage());
            MemchanException itself = assertThrows(MemchanException.class, () -> UcxHub.standby(primary.address(), fabric, secret,
                    primary.address(), LOOPBACK_TCP));
            assertEquals(MemchanException.Kind.INVALID_ARGUMENT, itself.kind(), itself.getMessage());
            try (UcxHub standby = UcxHub.standby(loopback(0), fabric, secret, primary.address(), LOOPBACK_TCP)) {
                MemchanException second = assertThrows(MemchanException.class, () -> UcxHub.standby(loopback(0), fabric, secret,
                        primary.address(), LOOPBACK_TCP));
                assertTrue(second.getMessage().contains("has a standby already"), second.getMessage());
                MemchanException ofStandby = assertThrows(MemchanException.class, () -> UcxHub.standby(loopback(0), fabric, secret,
                        standby.address(), LOOPBACK_TCP));
                assertTrue(ofStandby.getMessage().contains("itself the standby of the hub at"), ofStandby.getMessage());
                assertEquals(before, primary.census(Duration.ofSeconds(30)), "the refusals changed the primary's tables");
                assertEquals(1, primary.joins().admitted(), "the good standby and no other: " + primary.joins());
                assertEquals(0, standby.joins().admitted(), standby.joins().toString());

                String at = "ucx://127.0.0.1:" + primary.address().getPort() + ",127.0.0.1:" + standby.address().getPort() + "/" + fabric;
                UcxPeer a = node("a", "h1", at);
                UcxPeer b = node("b", "h2", at);
                a.request("tx 20 1 " + BROADCAST_LOCAL, "ok");
                b.request("rx 20 1 " + RxPct.encode(true, false), "ok");
                a.request("store 0 5 5", "ok");
                a.request("barrier", "ok");
                assertEquals("5", b.request("load 0", "value"));
                String atStandby = "ucx://127.0.0.1:" + standby.address().getPort() + "/" + fabric;
                String refused = process("c", "h1").ask("join " + atStandby + " -1");
                assertTrue(refused.startsWith("error NOT_FOUND") && refused.contains(UcxHub.STANDBY_NOT_SERVING), refused);
            }
        }
    }

    /**
     * A death declared at a primary with a standby: the primary answers once the standby holds the drop, so after the
     * takeover the dropped node has no session to resume and fails as without a standby; the others resume with the
     * incarnations they reported (a's before the standby joined, in the state it got then; b's after, as a change),
     * and at the standby a declaration drops by incarnation as at the primary, a wrong or stale one nothing.
     */
    @Test
    void aDeclaredDeathReachesTheStandbyAndTheStandbyMatchesIncarnations() throws Exception {
        fabric = "f" + ProcessHandle.current().pid();
        JoinSecret secret = JoinSecret.load(secret("secret"));
        Duration read = Duration.ofSeconds(60);
        UcxHub primary = new UcxHub(loopback(0), fabric, secret, SF_DEFAULT_FILE_SIZE, SF_DEFAULT_PAGE_SIZE, SF_DEFAULT_MAX_NODES,
                LOOPBACK_TCP);
        boolean primaryClosed = false;
        try {
            int standbyPort;
            try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                standbyPort = free.getLocalPort();
            }
            String at = "ucx://127.0.0.1:" + primary.address().getPort() + ",127.0.0.1:" + standbyPort + "/" + fabric;
            UcxPeer a = process("a", "h1");
            int na = Integer.parseInt(a.request("join " + at + " -1", "node"));
            a.request("barrier", "ok"); // its incarnation is at the primary (reported before the barrier) before the standby joins
            try (UcxHub standby = UcxHub.standby(loopback(standbyPort), fabric, secret, primary.address(), LOOPBACK_TCP)) {
                UcxPeer b = process("b", "h2");
                int nb = Integer.parseInt(b.request("join " + at + " -1", "node"));
                UcxPeer c = process("c", "h3");
                int nc = Integer.parseInt(c.request("join " + at + " -1", "node"));
                b.request("barrier", "ok");
                long ia = Long.parseLong(a.request("incarnation", "incarnation"));
                long ib = Long.parseLong(b.request("incarnation", "incarnation"));
                long ic = Long.parseLong(c.request("incarnation", "incarnation"));
                c.request("barrier", "ok");
                List<UcxHub.Member> before = primary.members(read);
                String wrong = a.ask("declare " + nc + " " + (ic + 1));
                assertTrue(wrong.startsWith("error NOT_FOUND"), wrong);
                assertEquals(before, primary.members(read), "a refused declaration changed the primary's members");
                a.request("declare " + nc + " " + ic, "ok");
                List<UcxHub.Member> survivors = before.stream().filter(m -> m.node() != nc).toList();
                assertEquals(List.of(na + ":" + ia, nb + ":" + ib), survivors.stream().map(m -> m.node() + ":" + m.incarnation()).toList(),
                        "a and b (nodes in the order they joined) with their incarnations");
                assertEquals(survivors, primary.members(read));

                primary.close(); // its end is the standby's takeover, and the nodes' move there
                primaryClosed = true;
                List<UcxHub.Member> resumed = List.of();
                for (int attempt = 0; attempt < 6000 && !resumed.equals(survivors); attempt++) {
                    Thread.sleep(10);
                    resumed = standby.members(read);
                }
                assertEquals(survivors, resumed, "a and b resumed at the standby with their incarnations, c not");
                String dropped = c.ask("barrier");
                assertTrue(dropped.startsWith("error DEVICE_ERROR"), "c has no session at the standby: " + dropped);
                for (String bad : List.of("declare " + na + " " + (ia + 1), "declare " + nc + " " + ic, "declare " + nb + " " + ib)) {
                    String refused = b.ask(bad);
                    assertTrue(refused.startsWith(bad.endsWith(nb + " " + ib) ? "error INVALID_ARGUMENT" : "error NOT_FOUND"), bad + ": " + refused);
                    assertEquals(resumed, standby.members(read), bad + " changed the standby's members");
                }
                b.request("declare " + na + " " + ia, "ok"); // a's incarnation came to the standby in the primary's state
                assertEquals(resumed.stream().filter(m -> m.node() == nb).toList(), standby.members(read));
            }
        } finally {
            if (!primaryClosed) {
                primary.close();
            }
        }
    }
}
