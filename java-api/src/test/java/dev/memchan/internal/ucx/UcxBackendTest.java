package dev.memchan.internal.ucx;

import dev.memchan.layout.RxPct;
import dev.memchan.layout.TxPct;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static dev.memchan.layout.Regs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code ucx://} backend between node processes ({@link UcxNodeMain}) over TCP on loopback, through the SPI.
 * The nodes belong to two hosts at the hub ({@link UcxBackend#HOST_PROPERTY}): each host has its own fabric file
 * and receiver, so a store crosses from one host's pages to the other's only through the hub.
 */
class UcxBackendTest {
    private static final Map<String, String> LOOPBACK_TCP = Map.of("TLS", "tcp", "NET_DEVICES", "lo");
    private static final int BROADCAST_LOCAL = TxPct.encode(true, true, false, DEST_KIND_BROADCAST, 0);
    private final List<UcxPeer> nodes = new ArrayList<>();
    private final List<String> fabrics = new ArrayList<>();

    @AfterEach
    void closeNodesAndRemoveTheirHostFiles() throws IOException {
        for (UcxPeer n : nodes) {
            n.close();
        }
        try (var files = Files.list(Path.of("/dev/shm"))) {
            for (Path f : files.toList()) {
                if (fabrics.stream().anyMatch(name -> f.getFileName().toString().contains("ucx-" + name + "-"))) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** A fabric name of this test run, whose host files are removed after the test. */
    private String fabric(String tag) {
        String name = tag + ProcessHandle.current().pid();
        fabrics.add(name);
        return name;
    }

    @TempDir
    Path secrets;

    /** The fabric's secret, made once per test. */
    private Path secret() {
        Path file = secrets.resolve("secret");
        if (!Files.exists(file)) {
            JoinSecret.create(file);
        }
        return file;
    }

    private UcxPeer node(String name, String host) throws IOException, InterruptedException {
        UcxPeer p = UcxPeer.start(name, UcxNodeMain.class, List.of("-D" + UcxBackend.HOST_PROPERTY + "=" + host,
                "-D" + UcxBackend.SECRET_PROPERTY + "=" + secret()));
        nodes.add(p);
        return p;
    }

    private UcxHub hub(String fabric) {
        return new UcxHub(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), fabric, JoinSecret.load(secret()), SF_DEFAULT_FILE_SIZE,
                SF_DEFAULT_PAGE_SIZE, SF_DEFAULT_MAX_NODES, LOOPBACK_TCP);
    }

    private static String location(InetSocketAddress hub, String name) {
        return "ucx://127.0.0.1:" + hub.getPort() + "/" + name;
    }

    @Test
    void storesBarrierRoutesRemoteAtomicsAndNotificationsAcrossTwoHosts() throws Exception {
        String name = fabric("t");
        try (UcxHub hub = hub(name)) {
            String at = location(hub.address(), name);
            UcxPeer a = node("a", "h1");
            UcxPeer b = node("b", "h2");
            UcxPeer c = node("c", "h2");
            int na = Integer.parseInt(a.request("join " + at + " -1", "node"));
            int nb = Integer.parseInt(b.request("join " + at + " -1", "node"));
            int nc = Integer.parseInt(c.request("join " + at + " -1", "node"));
            assertEquals(3, Set.of(na, nb, nc).size(), "three node IDs");

            // a broadcast with the local copy: at both hosts once the barrier returns
            a.request("tx 20 1 " + BROADCAST_LOCAL, "ok");
            a.request("rx 20 3 " + RxPct.encode(true, false), "ok");
            b.request("rx 20 3 " + RxPct.encode(true, true), "ok");
            c.request("rx 20 3 " + RxPct.encode(true, false), "ok");
            a.request("store 8 42 42", "ok");
            a.request("barrier", "ok");
            for (UcxPeer p : List.of(a, b, c)) {
                assertEquals("42", p.request("load 8", "value"));
            }

            // a unicast to b without the local copy: at b's host (c shares its pages), not at a's
            a.request("exit", "");
            nodes.remove(a);
            a = node("a2", "h1");
            assertEquals(na, Integer.parseInt(a.request("join " + at + " " + na, "node")), "a's ID is free again, and a's host kept");
            a.request("tx 21 1 " + TxPct.encode(true, false, false, DEST_KIND_NODE, nb), "ok");
            a.request("rx 20 3 " + RxPct.encode(true, false), "ok");
            a.request("store 0 7 7", "ok"); // page 21: offset 4096 of the receive grants
            a.request("barrier", "ok");
            assertEquals("7", b.request("load 4096", "value"));
            assertEquals("7", c.request("load 4096", "value"));
            assertEquals("0", a.request("load 4096", "value"), "no local copy, and no destination on a's host");
            assertEquals("42", a.request("load 8", "value"), "a's host kept its pages");

            // a notification after a store: the store is there when the receiver wakes
            int before = Integer.parseInt(b.request("notifycount", "count"));
            a.request("store 8 9 9", "ok");
            a.request("notify 21", "ok");
            assertNotEquals(before, Integer.parseInt(b.request("awaitnotify " + before, "count")));
            assertEquals("9", b.request("load 4104", "value"));

            // remote fetch-add at b's page 22 (b grants atomics there) from both hosts: every old value once
            b.request("exit", "");
            nodes.remove(b);
            b = node("b2", "h2");
            assertEquals(nb, Integer.parseInt(b.request("join " + at + " " + nb, "node")));
            b.request("rx 22 1 " + (RxPct.encode(true, false) | RX_PCT_ATOMIC_EN_MASK), "ok");
            a.send("fetchadd " + nb + " 22 16 100");
            c.send("fetchadd " + nb + " 22 16 100");
            Set<Long> olds = new HashSet<>();
            for (UcxPeer p : List.of(a, c)) {
                for (String v : p.answer("olds").split(",")) {
                    assertTrue(olds.add(Long.parseLong(v)), "old value " + v + " twice");
                }
            }
            assertEquals(200, olds.size());
            assertTrue(olds.stream().allMatch(v -> v >= 0 && v < 200), "olds are 0..199: " + olds);
            assertTrue(c.ask("fetchadd " + na + " 22 16 1").startsWith("error PERMISSION"), "a grants no atomics on page 22");
            for (UcxPeer p : List.of(a, b, c)) {
                assertEquals("0", p.request("errors", "errors"), p::logTail);
            }

            // cluster time: the hub (a thread of this JVM) reads this host's monotonic clock, so each node's
            // reading, taken between two of its own nanoTime calls, must bracket that clock within its bound
            for (UcxPeer p : List.of(a, b, c)) {
                assertEquals("0", p.request("clock 2000", "outside"), "readings ahead of the hub or short of it by more than their bound");
            }
        }
    }

    /**
     * A host whose two receivers are stopped while it has a third process: the hub moves the stalled receivers
     * behind it, so the host applies and acknowledges, a barrier from another host completes and the third process
     * reads the store. Without the move the barrier waits for the stopped ones (its 60 s bound, then TIMEOUT).
     */
    @Test
    void aHostWhoseReceiversAreStoppedAppliesThroughItsOtherProcess() throws Exception {
        String name = fabric("s");
        try (UcxHub hub = hub(name)) {
            String at = location(hub.address(), name);
            UcxPeer a = node("a", "h1");
            UcxPeer b = node("b", "h1");
            UcxPeer c = node("c", "h1");
            UcxPeer d = node("d", "h2");
            for (UcxPeer p : List.of(a, b, c, d)) { // in this order: a and b are h1's receivers
                p.request("join " + at + " -1", "node");
            }
            c.request("rx 20 1 " + RxPct.encode(true, false), "ok");
            d.request("tx 20 1 " + BROADCAST_LOCAL, "ok");
            signal("STOP", a, b);
            try {
                d.request("store 8 42 42", "ok");
                d.request("barrier", "ok");
                assertEquals("42", c.request("load 8", "value"), "h1 applied the store through c");
            } finally {
                signal("CONT", a, b);
            }
            d.request("store 8 43 43", "ok");
            d.request("barrier", "ok");
            assertEquals("43", c.request("load 8", "value"));
            for (UcxPeer p : List.of(a, b, c, d)) {
                assertEquals("0", p.request("errors", "errors"), p::logTail);
            }
        }
    }

    /**
     * A survivor's declaration of a dead incarnation at the hub: the hub drops that incarnation's processes at once, so
     * a barrier completes while the dead node's only process is stopped (SIGSTOP: its connections live, as a cut
     * host's do, and its host acknowledges nothing). Declarations that name no process the hub holds (an ID out of
     * range, the declarer itself, an incarnation the hub never held, the incarnation of a node that came back on its
     * host or on another) are refused and leave the hub's members as they were. A node that comes back on another
     * host goes past every incarnation it had (host files number claims each on their own).
     */
    @Test
    void aDeclaredDeadIncarnationIsDroppedAtOnceAndAStaleOneChangesNothing() throws Exception {
        String name = fabric("f");
        try (UcxHub hub = hub(name)) {
            String at = location(hub.address(), name);
            UcxPeer b = node("b", "h2");
            int nb = Integer.parseInt(b.request("join " + at + " -1", "node"));
            UcxPeer a = node("a", "h1");
            int na = Integer.parseInt(a.request("join " + at + " 5", "node"));
            long first = incarnationAtTheHub(hub, a, na);
            long own = incarnationAtTheHub(hub, b, nb);
            List<UcxHub.Member> members = hub.members(HUB_READ);
            assertRefused(hub, members, b, "declare 99 " + first, "INVALID_ARGUMENT");
            assertRefused(hub, members, b, "declare " + nb + " " + own, "INVALID_ARGUMENT");
            assertRefused(hub, members, b, "declare " + na + " " + (first + 1), "NOT_FOUND");
            assertRefused(hub, members, b, "declare 6 " + first, "NOT_FOUND");

            a.request("exit", "");
            nodes.remove(a);
            awaitGone(hub, na);
            UcxPeer a2 = node("a2", "h1");
            assertEquals(na, Integer.parseInt(a2.request("join " + at + " " + na, "node")));
            long second = incarnationAtTheHub(hub, a2, na);
            assertTrue(second > first, "a claim on the same host is a new incarnation: " + first + ", then " + second);
            assertRefused(hub, hub.members(HUB_READ), b, "declare " + na + " " + first, "NOT_FOUND");

            a2.request("exit", "");
            nodes.remove(a2);
            awaitGone(hub, na);
            UcxPeer a3 = node("a3", "h3"); // a host whose file never held node 5: its own count would start at 1 again
            assertEquals(na, Integer.parseInt(a3.request("join " + at + " " + na, "node")));
            long third = incarnationAtTheHub(hub, a3, na);
            assertTrue(third > second, "a claim on another host goes past the node's incarnations elsewhere: " + second + ", then " + third);
            members = hub.members(HUB_READ);
            assertRefused(hub, members, b, "declare " + na + " " + first, "NOT_FOUND");
            assertRefused(hub, members, b, "declare " + na + " " + second, "NOT_FOUND");

            b.request("tx 20 1 " + BROADCAST_LOCAL, "ok");
            signal("STOP", a3);
            try {
                b.request("store 0 1 1", "ok"); // into h3's stream too, which nothing there acknowledges
                b.request("declare " + na + " " + third, "ok");
                assertFalse(hub.members(HUB_READ).stream().anyMatch(m -> m.node() == na), "node 5 dropped: " + hub.members(HUB_READ));
                b.request("barrier", "ok");
            } finally {
                signal("CONT", a3);
            }
            String after = a3.ask("barrier");
            assertTrue(after.startsWith("error DEVICE_ERROR"), "the dropped node is no longer the hub's: " + after);
            assertRefused(hub, hub.members(HUB_READ), b, "declare " + na + " " + third, "NOT_FOUND");
        }
    }

    private static final java.time.Duration HUB_READ = java.time.Duration.ofSeconds(60);

    /** {@code p}'s node incarnation, checked against the one the hub holds for it (its report precedes its barrier). */
    private static long incarnationAtTheHub(UcxHub hub, UcxPeer p, int node) throws IOException, InterruptedException {
        long incarnation = Long.parseLong(p.request("incarnation", "incarnation"));
        p.request("barrier", "ok");
        List<UcxHub.Member> of = hub.members(HUB_READ).stream().filter(m -> m.node() == node).toList();
        assertEquals(1, of.size(), "one process of node " + node + ": " + of);
        assertEquals(incarnation, of.getFirst().incarnation(), "the hub holds the node's incarnation");
        return incarnation;
    }

    /** {@code command} refused with {@code kind}, and the hub's members as they were. */
    private static void assertRefused(UcxHub hub, List<UcxHub.Member> members, UcxPeer p, String command, String kind)
            throws IOException, InterruptedException {
        String answer = p.ask(command);
        assertTrue(answer.startsWith("error " + kind), command + ": " + answer);
        assertEquals(members, hub.members(HUB_READ), command + " changed the hub's members");
    }

    /** Waits until the hub holds no process of {@code node} (it takes a process's end from its control connection). */
    private static void awaitGone(UcxHub hub, int node) throws InterruptedException {
        for (int attempt = 0; attempt < 6000 && hub.members(HUB_READ).stream().anyMatch(m -> m.node() == node); attempt++) {
            Thread.sleep(10);
        }
        assertFalse(hub.members(HUB_READ).stream().anyMatch(m -> m.node() == node), "node " + node + " left the hub");
    }

    private static void signal(String sig, UcxPeer... peers) throws IOException, InterruptedException {
        for (UcxPeer p : peers) {
            assertEquals(0, new ProcessBuilder("kill", "-" + sig, "" + p.pid()).inheritIO().start().waitFor(), "kill -" + sig);
        }
    }

    /**
     * Two senders on two hosts store 1..N into their own word; a reader on each host reads the words in opposite
     * orders. With one order of all stores at every host, no reader sees the first sender's store before the
     * second's while the other sees the second's before the first's (independent reads of independent writes).
     */
    @Test
    void everyHostSeesOneOrderOfTwoSendersStores() throws Exception {
        int n = 3000;
        String name = fabric("o");
        try (UcxHub hub = hub(name)) {
            String at = location(hub.address(), name);
            UcxPeer a = node("a", "h1");
            UcxPeer b = node("b", "h2");
            UcxPeer c = node("c", "h1");
            UcxPeer d = node("d", "h2");
            for (UcxPeer p : List.of(a, b, c, d)) {
                p.request("join " + at + " -1", "node");
            }
            a.request("tx 30 1 " + BROADCAST_LOCAL, "ok");
            b.request("tx 31 1 " + BROADCAST_LOCAL, "ok");
            c.request("rx 30 2 " + RxPct.encode(true, false), "ok");
            d.request("rx 30 2 " + RxPct.encode(true, false), "ok");
            long x = 0;
            long y = 4096;
            c.send("watch " + x + " " + y + " " + n);
            d.send("watch " + y + " " + x + " " + n);
            a.send("store 0 1 " + n);
            b.send("store 0 1 " + n);
            a.answer("ok");
            b.answer("ok");
            List<long[]> xFirst = pairs(c.answer("pairs"), false);
            List<long[]> yFirst = pairs(d.answer("pairs"), true);
            assertMonotonic(xFirst);
            assertMonotonic(yFirst);
            // c read x = p[0] then y = p[1]: x's store p[0] precedes y's store p[1] + 1; d likewise with y first
            for (long[] p : xFirst) {
                for (long[] q : yFirst) {
                    assertTrue(!(q[1] > p[1] && q[0] < p[0]), "c saw x=" + p[0] + " before y=" + (p[1] + 1) + ", d saw y="
                            + q[1] + " before x=" + (q[0] + 1) + ": two orders");
                }
            }
            assertTrue(xFirst.size() > 1 && yFirst.size() > 1, "both readers saw the words move");
        }
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

    private static void assertMonotonic(List<long[]> pairs) {
        for (int i = 1; i < pairs.size(); i++) {
            assertTrue(pairs.get(i)[0] >= pairs.get(i - 1)[0] && pairs.get(i)[1] >= pairs.get(i - 1)[1],
                    "a sender's stores in its order: " + Arrays.toString(pairs.get(i - 1)) + " then " + Arrays.toString(pairs.get(i)));
        }
    }

    @Test
    void aDeadNodesIdIsFreeAgainAndAnotherHostMayTakeIt() throws Exception {
        String name = fabric("d");
        try (UcxHub hub = hub(name)) {
            String at = location(hub.address(), name);
            UcxPeer a = node("a", "h1");
            UcxPeer b = node("b", "h2");
            assertEquals("5", a.request("join " + at + " 5", "node"));
            Path other = secrets.resolve("other");
            JoinSecret.create(other);
            UcxPeer stranger = UcxPeer.start("stranger", UcxNodeMain.class, List.of("-D" + UcxBackend.HOST_PROPERTY + "=h2",
                    "-D" + UcxBackend.SECRET_PROPERTY + "=" + other));
            nodes.add(stranger);
            String refusedStranger = stranger.ask("join " + at + " -1");
            assertTrue(refusedStranger.startsWith("error PERMISSION"), "another secret: " + refusedStranger);
            String refused = b.ask("join " + at + " 5");
            assertTrue(refused.startsWith("error IN_USE") && refused.contains("another host"), refused);
            a.kill();
            // the hub frees the ID when a's control connection ends (the kernel closes it with the process): the join
            // succeeds once the hub has taken that end
            String answer = refused;
            for (int attempt = 0; attempt < 600 && answer.startsWith("error IN_USE"); attempt++) {
                answer = b.ask("join " + at + " 5");
            }
            assertEquals("node 5", answer);
        }
    }

    /**
     * Nodes a (host h1) and b (host h2) join {@code at}; a broadcasts {@code value} at offset 0 and b loads it after
     * a's barrier. Returns a and b.
     */
    private List<UcxPeer> twoHostsStoreAcross(String at, long value) throws IOException, InterruptedException {
        UcxPeer a = node("a", "h1");
        UcxPeer b = node("b", "h2");
        a.request("join " + at + " -1", "node");
        b.request("join " + at + " -1", "node");
        a.request("tx 20 1 " + BROADCAST_LOCAL, "ok");
        b.request("rx 20 1 " + RxPct.encode(true, false), "ok");
        a.request("store 0 " + value + " " + value, "ok");
        a.request("barrier", "ok");
        assertEquals(Long.toString(value), b.request("load 0", "value"), "a's store at b's host");
        return List.of(a, b);
    }

    /** The TCP ports this process listens on, as {@code ss} shows them. */
    private static Set<Integer> listeningPorts() throws IOException, InterruptedException {
        Process ss = new ProcessBuilder("ss", "-ltnpH").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String table = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, ss.waitFor(), "ss -ltnpH");
        Set<Integer> ports = new HashSet<>();
        for (String line : table.split("\n")) {
            if (line.contains("pid=" + ProcessHandle.current().pid() + ",")) {
                String local = line.trim().split("\\s+")[3];
                ports.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1)));
            }
        }
        return ports;
    }

    /** Writes {@code bytes} to {@code port} on loopback from a plain TCP client and leaves. */
    private static void writeAndLeave(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
        } catch (java.net.SocketException reset) {
            // the port closed the connection while the bytes went: what it did with them is the point, not this
        }
    }

    /**
     * Plain TCP clients at the hub's front door and at UCX's own data port of the hub's worker (the ports this
     * process listens on beyond those it had before the hub, less the front door): 64 zero bytes (what aborts a
     * UCX 1.13 listener), random bytes, a truncated ASK, an oversized length, a hundred connections at once. The
     * hub stays up (it is this process), counts each refusal at the front door, and nodes join and store after.
     */
    @Test
    void garbageAtTheFrontDoorAndAtUcxsDataPortStopsNothing() throws Exception {
        String name = fabric("g");
        Set<Integer> before = listeningPorts();
        try (UcxHub hub = hub(name)) {
            int door = hub.address().getPort();
            Set<Integer> dataPorts = new HashSet<>(listeningPorts());
            dataPorts.removeAll(before);
            assertTrue(dataPorts.remove(door), "the front door listens: " + dataPorts);
            assertFalse(dataPorts.isEmpty(), "UCX's data port of the hub's worker listens");
            byte[] noise = new byte[4096];
            new Random(26).nextBytes(noise);
            noise[0] |= (byte) 0x80;
            byte[] ask = JoinMessages.ask(JoinMessages.VERSION, name);
            byte[] askFrame = java.nio.ByteBuffer.allocate(JoinLink.PREFIX + ask.length).putInt(ask.length).put(ask).array();
            for (int port : dataPorts) {
                writeAndLeave(port, new byte[64]);
                writeAndLeave(port, noise);
                writeAndLeave(port, Arrays.copyOf(askFrame, askFrame.length - 3));
            }
            writeAndLeave(door, new byte[64]);
            writeAndLeave(door, noise);
            writeAndLeave(door, Arrays.copyOf(askFrame, askFrame.length - 3));
            writeAndLeave(door, java.nio.ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            List<Socket> crowd = new ArrayList<>();
            try {
                for (int i = 0; i < 100; i++) {
                    crowd.add(new Socket(InetAddress.getLoopbackAddress(), i % 2 == 0 ? door : dataPorts.iterator().next()));
                }
            } finally {
                for (Socket s : crowd) {
                    s.close();
                }
            }
            JoinCounters joins = hub.joins();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (joins.refusedTotal() < 4 + 50 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, joins.refused(JoinRefusal.Reason.MALFORMED), joins.toString());
            assertEquals(2, joins.refused(JoinRefusal.Reason.OVERSIZED), joins.toString());
            assertEquals(1, joins.refused(JoinRefusal.Reason.TRUNCATED), joins.toString());
            assertEquals(50, joins.refused(JoinRefusal.Reason.DISCONNECTED), joins.toString());
            assertEquals(0, joins.admitted());

            String at = location(hub.address(), name);
            twoHostsStoreAcross(at, 7);
            assertEquals(2, joins.admitted());
        }
    }

    @Test
    void theHubsDeathGivesErrorsNotHangs() throws Exception {
        Process hub = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                UcxHubMain.class.getName(), "127.0.0.1:0", fabric("h"), "--secret", secret().toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(hub.getInputStream(), StandardCharsets.UTF_8));
            String listening = out.readLine();
            assertTrue(listening != null && listening.startsWith("hub listening at 127.0.0.1:"), "hub said " + listening);
            int port = Integer.parseInt(listening.substring(listening.lastIndexOf(':') + 1));
            String at = "ucx://127.0.0.1:" + port + "/" + fabrics.getLast();
            List<UcxPeer> ab = twoHostsStoreAcross(at, 1);
            UcxPeer a = ab.get(0);
            UcxPeer b = ab.get(1);
            hub.destroyForcibly();
            hub.waitFor();
            String stored = "ok";
            for (int i = 0; i < 100_000 && stored.equals("ok"); i++) {
                stored = a.ask("store 0 2 2");
            }
            assertTrue(stored.startsWith("error DEVICE_ERROR") && stored.contains("hub at 127.0.0.1:" + port + " unreachable"), stored);
            for (UcxPeer p : List.of(a, b)) {
                String barrier = p.ask("barrier");
                assertTrue(barrier.startsWith("error DEVICE_ERROR") && barrier.contains("unreachable"), barrier);
                long errors = Long.parseLong(p.request("errors", "errors"));
                assertTrue(errors >= 0, "errors " + errors);
            }
            assertEquals("1", b.request("load 0", "value"), "nothing applied after the hub's death");
        } finally {
            hub.destroyForcibly();
            hub.waitFor(60, TimeUnit.SECONDS);
        }
    }
}
