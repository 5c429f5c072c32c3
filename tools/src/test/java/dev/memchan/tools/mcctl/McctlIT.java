package dev.memchan.tools.mcctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * End to end: the built launcher scripts/mcctl, as a separate process, against a fresh soft fabric with
 * two node agents. Every refused input is followed by reading the whole state back (every joined node's
 * PCT including system pages, multicast groups, regions, node ownership) and comparing it with the state
 * before.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class McctlIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LAUNCHER = System.getProperty("mcctl.launcher", "../scripts/mcctl");
    private static final String NAME = "mcctl-it-" + ProcessHandle.current().pid();
    private static final String FABRIC = "shm:" + NAME;
    private static final List<Process> agents = new ArrayList<>();
    private static Path dir;
    /** The state read back after the last command that may have changed it (null: read it again). */
    private static String baseline;

    record Run(int code, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + out + "\nstderr: " + err, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Run mcctl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(LAUNCHER);
        cmd.addAll(List.of(args));
        return exec(cmd);
    }

    static Run exec(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        var out = p.getInputStream().readAllBytes();
        var err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "mcctl " + cmd + " hung");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    static Run ok(String... args) throws Exception {
        baseline = null; // it may change the state
        Run r = mcctl(args);
        assertEquals(0, r.code(), String.join(" ", args) + "\n" + r);
        return r;
    }

    static Process agent(int node) throws Exception {
        Process p = new ProcessBuilder(LAUNCHER, "node", "join", "--fabric", FABRIC, "--node", "" + node)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        agents.add(p);
        String line = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        assertNotNull(line, "agent for node " + node + " exited without joining");
        assertTrue(line.startsWith("joined " + FABRIC + " as node " + node), line);
        return p;
    }

    /** Everything a refused command must leave as it was. */
    static String state() throws Exception {
        Run r = mcctl("status", "--fabric", FABRIC, "--pct", "--json");
        assertEquals(0, r.code(), r.toString());
        JsonNode status = r.json();
        StringBuilder sb = new StringBuilder();
        for (JsonNode n : status.get("nodes")) {
            sb.append("node ").append(n.get("node")).append(' ').append(n.get("state")).append(' ').append(n.get("pid")).append('\n');
        }
        sb.append("groups ").append(status.get("groups")).append('\n');
        sb.append("regions ").append(status.get("regions")).append('\n');
        for (JsonNode n : status.get("nodes")) {
            sb.append("pct of node ").append(n.get("node")).append(' ').append(n.get("pct")).append('\n');
        }
        return sb.toString();
    }

    /** Runs a command that must be refused with {@code code} and leave {@link #state()} unchanged. */
    static Run refused(int code, String... args) throws Exception {
        if (baseline == null) {
            baseline = state();
        }
        String before = baseline;
        Run r = mcctl(args);
        assertEquals(code, r.code(), String.join(" ", args) + "\n" + r);
        assertTrue(r.err().startsWith("mcctl: ") || r.err().contains(": line") || r.err().contains(".yaml:"), r.toString());
        assertEquals(before, state(), "state changed by the refused command " + String.join(" ", args));
        return r;
    }

    /**
     * Like {@link #refused} for a command that, accepted, would join and hold a node until stopped: it
     * must exit with {@code code} within {@code seconds}; one still running then is stopped and fails.
     */
    static Run refusedWithin(int seconds, int code, String... args) throws Exception {
        if (baseline == null) {
            baseline = state();
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(LAUNCHER);
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean exited = p.waitFor(seconds, TimeUnit.SECONDS);
        String held = exited ? "" : "still running after " + seconds + " s (holding a node?): " + state();
        if (!exited) {
            p.destroy(); // SIGTERM: an agent leaves the fabric
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "mcctl " + cmd + " did not stop on SIGTERM");
        }
        Run r = new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        assertTrue(exited, String.join(" ", args) + " " + held + "\n" + r);
        assertEquals(code, r.code(), String.join(" ", args) + "\n" + r);
        assertTrue(r.err().startsWith("mcctl: "), r.toString());
        assertEquals(baseline, state(), "state changed by the refused command " + String.join(" ", args));
        return r;
    }

    static Path config(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @BeforeAll
    static void fabricWithTwoNodes() throws Exception {
        assertTrue(Files.isExecutable(Path.of(LAUNCHER)), "launcher " + LAUNCHER);
        // the launcher starts from mcctl's AOT cache, as after scripts/install-mcctl: made here for
        // the jar this build just packaged (scripts/mcctl-aot-cache beside the launcher)
        Path aotCache = Path.of(LAUNCHER).resolveSibling("mcctl-aot-cache");
        if (Files.isExecutable(aotCache)) {
            Run made = exec(List.of(aotCache.toString()));
            assertEquals(0, made.code(), "mcctl-aot-cache\n" + made);
        }
        dir = Files.createTempDirectory("mcctl-it");
        Run create = ok("node", "create", "--fabric", FABRIC, "--size", "4M", "--nodes", "6", "--json");
        assertEquals(6, create.json().get("max_nodes").asInt());
        agent(0);
        agent(1);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        for (Process p : agents) {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        mcctl("node", "remove", "--fabric", FABRIC, "--force");
    }

    @Test
    @Order(1)
    void versionAndStatus() throws Exception {
        Run v = ok("--version");
        assertTrue(v.out().contains("library memchan-api") && v.out().contains("register map " + dev.memchan.layout.Regs.VERSION_MAJOR + "."
                + dev.memchan.layout.Regs.VERSION_MINOR), v.out());
        JsonNode s = ok("status", "--fabric", FABRIC, "--json").json();
        assertEquals("soft", s.get("kind").asText());
        assertEquals("0x4D454D43", s.get("adapter").get("id").asText());
        assertFalse(s.get("adapter").get("build").get("stamped").asBoolean(), "a soft fabric has no build stamp: " + s);
        assertEquals(2, s.get("nodes").size(), s.toString());
        for (JsonNode n : s.get("nodes")) {
            assertEquals("joined", n.get("state").asText());
            assertEquals(n.get("node").asText(), n.get("node_id_register").asText());
            assertEquals(0, n.get("counters").get("error_count").asInt());
            // one host, one clock: every node's offset and bound are 0
            assertEquals(0, n.get("clock").get("offset").asLong(), n.toString());
            assertEquals(0, n.get("clock").get("bound").asLong(), n.toString());
        }
        long before = System.nanoTime();
        JsonNode clock = ok("status", "--fabric", FABRIC, "--json").json().get("clock");
        assertEquals("ns", clock.get("unit").asText(), clock.toString());
        assertEquals(0, clock.get("bound").asLong(), clock.toString());
        assertTrue(clock.get("time").asLong() >= before && clock.get("time").asLong() <= System.nanoTime(),
                "the soft fabric's cluster time is this host's monotonic clock: " + clock);
        Run text = ok("status", "--fabric", FABRIC);
        assertTrue(text.out().contains("NODE STATE"), text.out());
        assertTrue(text.out().contains("build      no stamp ("), text.out());
        assertTrue(text.out().contains("clock      time ") && text.out().contains(" ns, bound 0 (host monotonic clock"), text.out());
        JsonNode nodes = ok("node", "show", "--fabric", FABRIC, "--json").json();
        assertEquals("joined", nodes.get("nodes").get(1).get("state").asText());
        assertEquals("free", nodes.get("nodes").get(2).get("state").asText());
    }

    @Test
    @Order(2)
    void pctSetShowClear() throws Exception {
        ok("pct", "set", "--fabric", FABRIC, "--node", "1", "700-703", "--tx", "node:0", "--ack", "--rx", "--irq");
        JsonNode e = ok("pct", "show", "--fabric", FABRIC, "--node", "1", "700-704", "--json").json().get("entries");
        assertEquals(5, e.size());
        for (int i = 0; i < 4; i++) {
            assertEquals("node:0", e.get(i).get("destination").asText());
            assertTrue(e.get(i).get("ack_request").asBoolean() && e.get(i).get("interrupt").asBoolean());
            assertFalse(e.get(i).get("local_copy").asBoolean());
        }
        assertFalse(e.get(4).get("tx_enable").asBoolean());
        ok("pct", "set", "--fabric", FABRIC, "--node", "0", "700", "--tx", "node:0", "--local-copy"); // same route: allowed
        Run table = ok("pct", "show", "--fabric", FABRIC, "--node", "0", "700");
        assertTrue(table.out().contains("node:0") && table.out().contains("yes"), table.out());
        ok("pct", "clear", "--fabric", FABRIC, "--node", "0", "700");
        assertEquals("0x00000000", ok("pct", "show", "--fabric", FABRIC, "--node", "0", "700", "--json").json()
                .get("entries").get(0).get("tx").asText());
        // the routed pages are a static carve-out in the directory, so no program's region lands on them
        assertEquals(List.of("700+4 users 1"), staticCarveOuts());
        ok("pct", "set", "--fabric", FABRIC, "--node", "0", "760", "--rx");
        assertEquals(List.of("700+4 users 1", "760+1 users 0"), staticCarveOuts());
        ok("pct", "clear", "--fabric", FABRIC, "--node", "0", "760");
        assertEquals(List.of("700+4 users 1"), staticCarveOuts(), "a carve-out no node holds is freed");
    }

    /** The directory's static carve-outs as "FIRST+PAGES users NODES". */
    static List<String> staticCarveOuts() throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode r : ok("status", "--fabric", FABRIC, "--json").json().get("regions")) {
            if (r.get("kind").asText().equals("static")) {
                out.add(r.get("first_page").asInt() + "+" + r.get("pages").asInt() + " users " + r.get("users").asText());
            }
        }
        return out;
    }

    @Test
    @Order(3)
    void badPctInputChangesNothing() throws Exception {
        // node 1 routes pages 700..703 to node 0 (previous test)
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "9", "720", "--tx", "node:0");           // node out of range
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "3", "720", "--tx", "node:0");           // node not joined
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "1000-1100", "--tx", "node:1");     // outside the window
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "3", "--tx", "node:1");             // system page
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "720", "--tx", "node:6");           // destination out of range
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "720", "--tx", "nowhere");          // unknown destination
        refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "720", "--tx", "group:3");          // group without members
        Run conflict = refused(2, "pct", "set", "--fabric", FABRIC, "--node", "0", "698-701", "--tx", "node:1"); // 700, 701 conflict
        assertTrue(conflict.err().contains("one route"), conflict.err());
        assertEquals(1, conflict.err().strip().lines().count(), conflict.err());
        refused(2, "pct", "show", "--fabric", FABRIC, "--node", "0", "5000");
        refused(3, "status", "--fabric", "shm:" + NAME + "-missing");
        refused(3, "status", "--fabric", "dev:/dev/memchan-it-missing");
        refused(2, "node", "create", "--fabric", FABRIC);                                               // exists
        refused(2, "node", "join", "--fabric", FABRIC, "--node", "0");                                  // in use
        refused(2, "node", "remove", "--fabric", FABRIC);                                               // nodes joined
        refused(2, "node", "create", "--fabric", "shm:" + NAME + "-bad", "--nodes", "40");
        assertFalse(Files.exists(Path.of("/dev/shm/memchan-" + NAME + "-bad")));
    }

    @Test
    @Order(3)
    void theLibrarysAnyNodeAndAnyGroupAreNotUserInput() throws Exception {
        // -1 is the library's "any free node" / "the creator's group": typed by a user it is out of range
        Run set = refusedWithin(20, 2, "node", "set", "-1", "--fabric", FABRIC);
        assertTrue(set.err().contains("node ID -1 out of range"), set.toString());
        Run join = refusedWithin(20, 2, "node", "join", "--fabric", FABRIC, "--node", "-1");
        assertTrue(join.err().contains("node ID -1 out of range"), join.toString());
        Run selftest = refusedWithin(60, 2, "selftest", "--fabric", FABRIC, "--node", "-1");
        assertTrue(selftest.err().contains("node ID -1 out of range"), selftest.toString());
        refusedWithin(20, 2, "node", "set", "6", "--fabric", FABRIC);   // MAX_NODES of this fabric is 6
        refusedWithin(20, 2, "node", "set", "-2", "--fabric", FABRIC);
        Run group = refused(2, "node", "create", "--fabric", "shm:" + NAME + "-gid", "--group", "-1");
        assertTrue(group.err().contains("group ID -1 out of range"), group.toString());
        assertFalse(Files.exists(Path.of("/dev/shm/memchan-" + NAME + "-gid")));
    }

    @Test
    @Order(3)
    void theFailureTimeoutIsTheOperatorsAndCheckedBeforeAnythingJoins() throws Exception {
        // refused while parsing, before anything joins (an accepted join would hold node 4 until "hung")
        Run tooShort = refused(2, "node", "join", "--fabric", FABRIC, "--node", "4", "--failure-timeout", "150");
        assertTrue(tooShort.err().contains("failure timeout 150 ms out of range: 200..3600000 ms"), tooShort.toString());
        refused(2, "node", "join", "--fabric", FABRIC, "--node", "4", "--failure-timeout", "soon");
        Process p = new ProcessBuilder(LAUNCHER, "node", "join", "--fabric", FABRIC, "--node", "4", "--failure-timeout", "15000")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        agents.add(p);
        String line = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
        assertNotNull(line, "the agent exited without joining");
        assertTrue(line.startsWith("joined " + FABRIC + " as node 4 (pid ") && line.contains("failure timeout 15000 ms"), line);
        ok("node", "leave", "--fabric", FABRIC, "--node", "4");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the agent did not leave");
    }

    @Test
    @Order(3)
    void aCorruptFabricFileIsADeviceErrorAndStaysUntouched() throws Exception {
        Path corrupt = Path.of("/dev/shm/memchan-" + NAME + "-corrupt");
        byte[] junk = new byte[1 << 20];
        new java.util.Random(7).nextBytes(junk);
        Files.write(corrupt, junk);
        try {
            for (String[] args : List.of(new String[]{"status"}, new String[]{"pct", "set", "--node", "0", "20", "--tx", "node:1"},
                    new String[]{"selftest"})) {
                List<String> a = new ArrayList<>(List.of(args));
                a.addAll(List.of("--fabric", "shm:" + NAME + "-corrupt"));
                Run r = mcctl(a.toArray(String[]::new));
                assertEquals(4, r.code(), a + "\n" + r);
                assertTrue(r.err().contains("not a memchan fabric"), r.err());
                assertTrue(java.util.Arrays.equals(junk, Files.readAllBytes(corrupt)), "the corrupt file was written to by " + a);
            }
        } finally {
            Files.deleteIfExists(corrupt);
        }
    }

    @Test
    @Order(4)
    void noPermissionIsExitThree() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to run mcctl as another user");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
        // the checkout need not be readable by nobody (a clone under a 0700 directory is not): nobody runs a
        // copy of the launcher and the build that any uid can read
        Path install = readableInstall();
        try {
            List<String> asNobody = List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    "/usr/bin/env", "MCCTL_HOME=" + install.resolve("mcctl"), install.resolve("scripts/mcctl").toString());
            List<String> version = new ArrayList<>(asNobody);
            version.add("--version");
            Run v = exec(version);
            assumeTrue(v.code() == 0, "user nobody cannot run mcctl from " + install + " here: " + v.err());
            String before = state();
            List<String> status = new ArrayList<>(asNobody);
            status.addAll(List.of("status", "--fabric", FABRIC));
            Run r = exec(status);
            assertEquals(3, r.code(), r.toString());
            assertTrue(r.err().contains("permission") || r.err().contains("Permission"), r.err());
            assertEquals(before, state());
        } finally {
            try (var tree = Files.walk(install)) {
                tree.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * The launcher (scripts/mcctl, scripts/env.sh) and the build it runs (the tools jar and its lib/, as
     * MCCTL_HOME) copied into a new temporary directory that any uid can read: directories 0755, the
     * scripts 0755, the jars 0644.
     */
    private static Path readableInstall() throws IOException {
        var dirMode = java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x");
        var jarMode = java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
        Path scripts = Path.of(LAUNCHER).toAbsolutePath().getParent();
        Path target = scripts.resolveSibling("tools").resolve("target");
        Path jar;
        try (var jars = Files.list(target)) {
            jar = jars.filter(f -> f.getFileName().toString().matches("memchan-tools-.*\\.jar")
                    && !f.getFileName().toString().matches(".*-(sources|tests|javadoc)\\.jar")).findFirst()
                    .orElseThrow(() -> new IOException("no memchan-tools jar in " + target));
        }
        Path root = Files.createTempDirectory("mcctl-any-uid-");
        Files.setPosixFilePermissions(root, dirMode);
        for (String d : List.of("scripts", "mcctl", "mcctl/lib")) {
            Files.createDirectory(root.resolve(d));
            Files.setPosixFilePermissions(root.resolve(d), dirMode);
        }
        for (String f : List.of("mcctl", "env.sh")) {
            Files.copy(scripts.resolve(f), root.resolve("scripts").resolve(f));
            Files.setPosixFilePermissions(root.resolve("scripts").resolve(f), dirMode);
        }
        Files.copy(jar, root.resolve("mcctl/memchan-tools.jar"));
        Files.setPosixFilePermissions(root.resolve("mcctl/memchan-tools.jar"), jarMode);
        try (var libs = Files.list(target.resolve("lib"))) {
            for (Path f : (Iterable<Path>) libs::iterator) {
                Path to = root.resolve("mcctl/lib").resolve(f.getFileName().toString());
                Files.copy(f, to);
                Files.setPosixFilePermissions(to, jarMode);
            }
        }
        return root;
    }

    @Test
    @Order(5)
    void badConfigFilesChangeNothing() throws Exception {
        Path malformed = config("malformed.yaml", "nodes: [0, 1\ngroups: {1: [0, 1]}\n");
        Run m = refused(2, "apply", "--fabric", FABRIC, malformed.toString());
        assertTrue(m.err().contains("malformed.yaml:"), m.err());
        // Line 4 is valid and would write pages 300..301 and group 2; lines 6-10 each have a problem.
        Path partial = config("partial.yaml", """
                nodes: [0, 1]
                groups: {2: [0, 1]}
                regions:
                  - {name: good, pages: 900-901, route: node:1, transmitters: [0], receivers: [1]}
                pct:
                  - {node: 5, pages: 910, tx: node:0}
                  - {node: 1, pages: 2000, tx: node:0}
                  - {node: 0, pages: 911, tx: node:4}
                  - {node: 0, pages: 701, tx: broadcast}
                  - {node: 1, pages: 912, tx: node:0, colour: blue}
                """);
        Run p = refused(2, "apply", "--fabric", FABRIC, partial.toString());
        for (String line : List.of(":6:", ":7:", ":8:", ":9:", ":10:")) {
            assertTrue(p.err().contains("partial.yaml" + line), "no problem reported at " + line + "\n" + p.err());
        }
        assertTrue(p.err().contains("5 problems"), p.err());
        Run check = refused(1, "apply", "--check", "--fabric", FABRIC, partial.toString());
        assertTrue(check.err().contains("partial.yaml:9:") && check.err().contains("one route"), check.err());
        JsonNode j = JSON.readTree(mcctl("apply", "--check", "--json", "--fabric", FABRIC, partial.toString()).out());
        assertFalse(j.get("valid").asBoolean());
        assertEquals(5, j.get("problems").size());
        Path receiverNotReached = config("invariant.yaml", """
                nodes: [0, 1]
                regions:
                  - {name: r, pages: 920, route: node:1, transmitters: [0], receivers: [0, 1]}
                """);
        Run inv = refused(2, "apply", "--fabric", FABRIC, receiverNotReached.toString());
        assertTrue(inv.err().contains("invariant.yaml:3:") && inv.err().contains("local copy"), inv.err());
        refused(2, "apply", "--fabric", FABRIC, dir.resolve("does-not-exist.yaml").toString());
    }

    @Test
    @Order(6)
    void applyValidConfig() throws Exception {
        Path good = config("cluster.yaml", """
                # two nodes, one multicast group, a region and single entries
                version: 1
                nodes: [0, 1]
                groups:
                  1: [0, 1]
                regions:
                  - name: telemetry
                    pages: 800-803
                    route: node:1
                    transmitters: [0]
                    receivers: [1]
                    interrupt: true
                pct:
                  - {node: 1, pages: 810+2, tx: group:1, local_copy: true, rx: true}
                """);
        String before = state();
        Run check = ok("apply", "--check", "--fabric", FABRIC, good.toString());
        assertTrue(check.out().contains("valid"), check.out());
        assertEquals(before, state(), "--check wrote something");
        JsonNode applied = ok("apply", "--json", "--fabric", FABRIC, good.toString()).json();
        assertTrue(applied.get("applied").asBoolean());
        assertEquals(4 * 2 + 2, applied.get("pct_writes").asInt());
        JsonNode tx0 = ok("pct", "show", "--fabric", FABRIC, "--node", "0", "800-803", "--json").json().get("entries");
        JsonNode rx1 = ok("pct", "show", "--fabric", FABRIC, "--node", "1", "800-803", "--json").json().get("entries");
        for (int i = 0; i < 4; i++) {
            assertEquals("node:1", tx0.get(i).get("destination").asText());
            assertFalse(tx0.get(i).get("rx_enable").asBoolean());
            assertTrue(rx1.get(i).get("rx_enable").asBoolean() && rx1.get(i).get("interrupt").asBoolean());
            assertFalse(rx1.get(i).get("tx_enable").asBoolean());
        }
        JsonNode g = ok("pct", "show", "--fabric", FABRIC, "--node", "1", "811", "--json").json().get("entries").get(0);
        assertEquals("group:1", g.get("destination").asText());
        JsonNode groups = ok("status", "--fabric", FABRIC, "--json").json().get("groups");
        assertEquals(1, groups.size());
        assertEquals("0,1", groups.get(0).get("nodes").asText());
        // Applying the same file again is a no-op that succeeds; a conflicting edit of it is refused.
        List<String> carved = staticCarveOuts();
        assertTrue(carved.contains("800+4 users 0,1") && carved.contains("810+2 users 1"), carved.toString());
        ok("apply", "--fabric", FABRIC, good.toString());
        assertEquals(carved, staticCarveOuts(), "applying again changed the carve-outs");
        Path conflicting = config("conflict.yaml", Files.readString(good) + "  - {node: 0, pages: 811, tx: node:1}\n");
        Run c = refused(2, "apply", "--fabric", FABRIC, conflicting.toString());
        assertTrue(c.err().contains("conflict.yaml:15:") && c.err().contains("one route"), c.err());
    }

    @Test
    @Order(7)
    void selftestPassesAndReplaysItsSeed() throws Exception {
        String before = state();
        JsonNode r = ok("selftest", "--fabric", FABRIC, "--json").json();
        assertTrue(r.get("passed").asBoolean(), r.toString());
        assertEquals(10, r.get("stages").size()); // the soft fabric has remote read and atomics
        List<String> names = new ArrayList<>();
        r.get("stages").forEach(s -> {
            names.add(s.get("name").asText());
            assertTrue(s.get("passed").asBoolean(), s.toString());
        });
        assertEquals(List.of("identity", "pct", "walking-ones", "address-in-data", "random", "ordering", "barrier", "remote-read",
                "atomics", "counters"), names);
        assertTrue(r.get("seed").asText().startsWith("0x"));
        Run text = ok("selftest", "--fabric", FABRIC, "--seed", "42");
        assertTrue(text.out().contains("seed 0x2a") && text.out().contains("10 of 10 stages passed"), text.out());
        assertEquals(before, state(), "selftest must restore the PCT and leave the fabric as it was");
    }

    @Test
    @Order(7)
    void selftestFailsWhenATestPageIsRoutedElsewhereAndRestoresThePct() throws Exception {
        int last = ok("status", "--fabric", FABRIC, "--json").json().get("adapter").get("page_count").asInt() - 1;
        ok("pct", "set", "--fabric", FABRIC, "--node", "0", "" + last, "--tx", "node:0");
        String before = state();
        Run r = mcctl("selftest", "--fabric", FABRIC, "--seed", "7", "--json");
        assertEquals(1, r.code(), r.toString());
        JsonNode j = r.json();
        assertFalse(j.get("passed").asBoolean());
        assertTrue(j.get("stages").get(0).get("passed").asBoolean(), j.toString());
        assertFalse(j.get("stages").get(1).get("passed").asBoolean(), j.toString());
        assertTrue(j.get("stages").get(1).get("detail").asText().contains("one route"), j.toString());
        assertEquals(before, state(), "a failed selftest must restore the test pages' PCT entries");
        ok("pct", "clear", "--fabric", FABRIC, "--node", "0", "" + last);
    }

    @Test
    @Order(8)
    void benchmarksRunShort() throws Exception {
        JsonNode pp = ok("bench", "pingpong", "--fabric", FABRIC, "--rounds", "2000", "--batches", "2", "--json").json();
        assertEquals(4000, pp.get("rounds").asLong());
        assertTrue(pp.get("p50").asLong() > 0 && pp.get("p50").asLong() <= pp.get("p99").asLong()
                && pp.get("p99").asLong() <= pp.get("p99_9").asLong() && pp.get("p99_9").asLong() <= pp.get("max").asLong(), pp.toString());
        Run text = ok("bench", "pingpong", "--fabric", FABRIC, "--rounds", "1000", "--batches", "1");
        assertTrue(text.out().contains("p99.9") && text.out().contains("#"), text.out());
        Run csv = ok("bench", "bandwidth", "--fabric", FABRIC, "--sizes", "64,4096", "--bytes", "1M", "--csv");
        List<String> lines = csv.out().strip().lines().toList();
        assertEquals("size_bytes,messages,mb_per_second", lines.getFirst());
        assertEquals(3, lines.size(), csv.out());
        assertTrue(Double.parseDouble(lines.get(2).split(",")[2]) > 0, csv.out());
        JsonNode lock = ok("bench", "lock", "--fabric", FABRIC, "--iterations", "2000", "--json").json();
        assertTrue(lock.get("cluster_lock_per_second").asDouble() > 0, lock.toString());
        refused(2, "bench", "pingpong", "--fabric", FABRIC, "--rounds", "0");
        // the benchmark's nodes left again
        assertEquals(2, ok("status", "--fabric", FABRIC, "--json").json().get("nodes").size());
    }

    @Test
    @Order(8)
    void benchmarksBetweenTwoProcessesThroughBenchServe() throws Exception {
        Process server = new ProcessBuilder(LAUNCHER, "bench", "serve", "--fabric", FABRIC, "--count", "2", "--json")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        agents.add(server);
        BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String first = lines.readLine();
        assertNotNull(first, "mcctl bench serve exited before serving");
        int node = JSON.readTree(first).get("node").asInt();
        JsonNode pp = ok("bench", "pingpong", "--fabric", FABRIC, "--peer", "" + node, "--rounds", "1000", "--batches", "1",
                "--json").json();
        assertEquals(node, pp.get("peer").asInt());
        assertTrue(pp.get("p50").asLong() > 0 && pp.get("p50").asLong() <= pp.get("max").asLong(), pp.toString());
        JsonNode bw = ok("bench", "bandwidth", "--fabric", FABRIC, "--peer", "" + node, "--sizes", "4096", "--bytes", "1M",
                "--json").json();
        assertTrue(bw.get("results").get(0).get("mb_per_second").asDouble() > 0, bw.toString());
        assertTrue(server.waitFor(60, TimeUnit.SECONDS), "bench serve --count 2 did not stop after two runs");
        assertEquals(0, server.exitValue());
        List<String> served = lines.lines().toList();
        assertEquals(2, served.size(), served.toString());
        assertEquals("pingpong", JSON.readTree(served.get(0)).get("kind").asText());
        assertEquals("bandwidth", JSON.readTree(served.get(1)).get("kind").asText());
        assertTrue(JSON.readTree(served.get(1)).get("ok").asBoolean(), served.toString());
        // no server on that node any more: a timeout with what to do, and this node is no peer of itself
        Run none = mcctl("bench", "pingpong", "--fabric", FABRIC, "--peer", "1", "--peer-timeout", "1");
        assertEquals(4, none.code(), none.toString());
        assertTrue(none.err().contains("start mcctl bench serve on that node"), none.toString());
        refused(2, "bench", "pingpong", "--fabric", FABRIC, "--peer", "99");
        // a server whose client never comes ends by itself, its node left (a script's server)
        Run idle = mcctl("bench", "serve", "--fabric", FABRIC, "--count", "1", "--idle-timeout", "1");
        assertEquals(4, idle.code(), idle.toString());
        assertTrue(idle.err().contains("no benchmark request within 1 s (served 0 of 1)"), idle.toString());
        refusedWithin(30, 2, "bench", "serve", "--fabric", FABRIC, "--idle-timeout", "-1");
        assertEquals(2, ok("status", "--fabric", FABRIC, "--json").json().get("nodes").size());
    }

    @Test
    @Order(9)
    void monitorPrintsSamples() throws Exception {
        Run r = ok("monitor", "--fabric", FABRIC, "--count", "2", "--interval", "700", "--json");
        List<String> lines = r.out().strip().lines().toList();
        assertEquals(2, lines.size(), r.out());
        for (String l : lines) {
            assertEquals(2, JSON.readTree(l).get("nodes").size(), l);
        }
        Run text = ok("monitor", "--fabric", FABRIC, "--count", "1");
        assertTrue(text.out().contains("TX_PACKETS"), text.out());
    }

    @Test
    @Order(10)
    void nodeLeave() throws Exception {
        refused(2, "node", "leave", "--fabric", FABRIC, "--node", "4");   // not joined
        JsonNode left = ok("node", "leave", "--fabric", FABRIC, "--node", "1", "--json").json();
        assertEquals(1, left.get("left").asInt());
        JsonNode nodes = ok("node", "show", "--fabric", FABRIC, "--json").json().get("nodes");
        assertEquals("free", nodes.get(1).get("state").asText());
        JsonNode pct = ok("pct", "show", "--fabric", FABRIC, "--node", "1", "--json").json().get("entries");
        assertEquals(0, pct.size(), "a node that left has no PCT entries: " + pct);
    }
}
