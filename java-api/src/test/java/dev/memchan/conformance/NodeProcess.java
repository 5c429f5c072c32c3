package dev.memchan.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A cluster node in its own JVM running {@link NodeMain}: the conformance suite's nodes are real
 * processes, so ordering, locking and failure detection cross process boundaries as in production.
 * The test talks to it over stdin/stdout lines; stderr goes to a log file quoted on failure.
 */
public final class NodeProcess implements AutoCloseable {
    /** HotSpot's first line when the JVM itself dies (SIGSEGV in compiled code, ...). */
    static final String JVM_FATAL_ERROR = "A fatal error has been detected by the Java Runtime Environment";

    /** System property: JVM options, separated by spaces, added to every node's command line. */
    static final String NODE_JVM_OPTIONS = "memchan.test.nodeJvmOptions";

    /**
     * System property: the command prefixes node JVMs start behind, one per slot, separated by ';', each split at
     * spaces; e.g. {@code ip netns exec NS1;ip netns exec NS2} puts the nodes on separate network stacks
     * (harness/netns.py). A node started for node N takes slot N mod the number of slots, any other node the next
     * slot in turn. Unset or blank: no prefix.
     */
    static final String NODE_LAUNCHERS = "memchan.test.nodeLaunchers";

    /** The slot of {@link #NODE_LAUNCHERS} the next node without a node number takes. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_LAUNCHER = new java.util.concurrent.atomic.AtomicInteger();

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> command;
    private final Path log;
    private final Path errorFile;
    private final String name;
    private Process process;
    private Writer stdin;
    /** Set once the node has said anything of its own or been sent a line: from then on it is never restarted. */
    private boolean engaged;
    private boolean restarted;

    /**
     * System property: how {@link #fail()} fails a node: {@code kill} (default: SIGKILL) or {@code cut} (its network
     * namespace's link cut at the hub's bridge, for nodes started behind {@code ip netns exec NS} launchers of
     * harness/netns.py, whose namespace NET-n&lt;i&gt; is port n&lt;i&gt; of the bridge in NET-hub).
     */
    static final String FAILURE_BY = "memchan.test.failureBy";

    /** The nodes started and not yet closed: a cut must not take a node the test did not mean to fail. */
    private static final java.util.Set<NodeProcess> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The command prefix this node started behind ({@link #NODE_LAUNCHERS}), empty when none. */
    private final List<String> launcher;
    /** The namespace whose link {@link #fail()} cut, restored when this node is closed; null when none is cut. */
    private String cutNamespace;

    private NodeProcess(String name, List<String> launcher, List<String> command) throws IOException {
        this.name = name;
        this.launcher = List.copyOf(launcher);
        this.log = Files.createTempFile("memchan-" + name + "-", ".log");
        this.errorFile = Path.of(log.toString().replace(".log", "-hs_err.log"));
        List<String> withErrorFile = new ArrayList<>(command);
        withErrorFile.add(withErrorFile.indexOf("-cp"), "-XX:ErrorFile=" + errorFile);
        this.command = List.copyOf(withErrorFile);
        launch();
    }

    private void launch() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
        Process started = pb.start();
        this.process = started;
        this.stdin = new OutputStreamWriter(started.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // process gone
            }
            lines.add("<EOF>");
        }, "node-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** The system property naming the node a {@link NodeMain} joins (several processes may share it). */
    public static final String NODE = "memchan.test.node";

    /** Starts {@code NodeMain scenario args...} as a process of node {@code node}. */
    public static NodeProcess startOnNode(String name, int node, String... args) throws IOException {
        return startAs(name, List.of(), true, onNode(node, args));
    }

    /**
     * {@link #startOnNode} on the test JVM's own host: without a launcher ({@link #NODE_LAUNCHERS}), for a test
     * whose premise is that the node's processes share the host of the test's observer.
     */
    public static NodeProcess startOnNodeHere(String name, int node, String... args) throws IOException {
        return start(name, List.of(), List.of(), true, classPath(), onNode(node, args));
    }

    private static String[] onNode(int node, String... args) {
        String[] withNode = new String[args.length + 1];
        withNode[0] = "-D" + NODE + "=" + node;
        System.arraycopy(args, 0, withNode, 1, args.length);
        return withNode;
    }

    /** Starts {@code NodeMain scenario args...}. */
    public static NodeProcess start(String name, String... args) throws IOException {
        return startAs(name, List.of(), true, args);
    }

    /**
     * Starts a node JVM, optionally behind a command prefix (e.g. setpriv to change uid) and optionally
     * without --enable-native-access.
     */
    public static NodeProcess startAs(String name, List<String> prefix, boolean nativeAccess, String... args) throws IOException {
        return startWithClassPath(name, prefix, nativeAccess, classPath(), args);
    }

    /** {@link #startAs(String, List, boolean, String...)} with another class path (e.g. a {@link ClassPathCopy}'s). */
    public static NodeProcess startWithClassPath(String name, List<String> prefix, boolean nativeAccess, String classPath, String... args)
            throws IOException {
        return start(name, launcher(System.getProperty(NODE_LAUNCHERS, ""), nodeSlot(args)), prefix, nativeAccess, classPath, args);
    }

    private static NodeProcess start(String name, List<String> launcher, List<String> prefix, boolean nativeAccess, String classPath,
            String... args) throws IOException {
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (nativeAccess) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Xmx128m");
        // JVM options of the deployment for every node (the guests: -XX:TieredStopAtLevel=1, where
        // C2's compiler threads take the vCPU from the nodes they compile for under QEMU TCG)
        for (String option : System.getProperty(NODE_JVM_OPTIONS, "").split(" ")) {
            if (!option.isEmpty()) {
                cmd.add(option);
            }
        }
        cmd.add("-D" + TestBackend.TIME_SCALE + "=" + TestBackend.timeScale());
        cmd.add("-D" + TestBackend.FAILURE_TIMEOUT + "=" + TestBackend.failureTimeout().toMillis());
        int first = 0;
        while (first < args.length && args[first].startsWith("-D")) { // JVM properties before the class
            cmd.add(args[first++]);
        }
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(NodeMain.class.getName());
        cmd.addAll(List.of(args).subList(first, args.length));
        NodeProcess started = new NodeProcess(name, launcher, cmd);
        OPEN.add(started);
        return started;
    }

    /** The node number a {@link #startOnNode} gave in {@code args}, else the next slot in turn. */
    private static int nodeSlot(String... args) {
        for (String a : args) {
            if (a.startsWith("-D" + NODE + "=")) {
                return Integer.parseInt(a.substring(NODE.length() + 3));
            }
        }
        return NEXT_LAUNCHER.getAndIncrement();
    }

    /**
     * The prefix of slot {@code slot} in {@code launchers} (the value of {@link #NODE_LAUNCHERS}): empty when it is blank;
     * an empty prefix among others is refused, naming the property.
     */
    static List<String> launcher(String launchers, int slot) {
        if (launchers.isBlank()) {
            return List.of();
        }
        String[] slots = launchers.split(";", -1);
        List<String> chosen = List.of(slots[Math.floorMod(slot, slots.length)].trim().split(" +"));
        for (String s : slots) {
            if (s.isBlank()) {
                throw new IllegalArgumentException(NODE_LAUNCHERS + " has an empty launcher among its ';'-separated ones: '" + launchers + "'");
            }
        }
        return chosen;
    }

    /** The library's and the suite's classes only: no build tool's cache (see {@link ClassPathCopy} for other uids). */
    static String classPath() {
        try {
            return Path.of(NodeMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + java.io.File.pathSeparator
                    + Path.of(dev.memchan.Fabric.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A copy of {@link #classPath()} that any uid can read (directories 0755, files 0644) in a new temporary
     * directory, removed on close: for a node run as another user. The build's own directories need not be
     * readable by one: a clone in a directory of mode 0700 (mktemp -d) is not.
     */
    static final class ClassPathCopy implements AutoCloseable {
        private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> DIR =
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x");
        private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> FILE =
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
        final Path root;
        final String classPath;

        ClassPathCopy() throws IOException {
            root = Files.createTempDirectory("memchan-cp-");
            try {
                Files.setPosixFilePermissions(root, DIR);
                List<String> entries = new ArrayList<>();
                String[] original = classPath().split(java.io.File.pathSeparator);
                for (int i = 0; i < original.length; i++) {
                    Path from = Path.of(original[i]);
                    Path to = root.resolve(i + (Files.isDirectory(from) ? "" : "-" + from.getFileName()));
                    try (var tree = Files.walk(from)) {
                        for (Path p : (Iterable<Path>) tree::iterator) {
                            Path q = to.resolve(from.relativize(p).toString());
                            if (Files.isDirectory(p)) {
                                Files.createDirectories(q);
                                Files.setPosixFilePermissions(q, DIR);
                            } else {
                                Files.copy(p, q);
                                Files.setPosixFilePermissions(q, FILE);
                            }
                        }
                    }
                    entries.add(to.toString());
                }
                classPath = String.join(java.io.File.pathSeparator, entries);
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        /**
         * Why a process of another uid (not in the owner's group) could still not run a node from this copy,
         * or null: a directory above the copy or the JDK it cannot search, or a JDK file it cannot read.
         */
        String unreachableForOthers() throws IOException {
            Path javaHome = Path.of(System.getProperty("java.home")).toRealPath();
            for (Path start : List.of(root.toRealPath(), javaHome)) {
                for (Path d = start; d != null; d = d.getParent()) {
                    if (!Files.getPosixFilePermissions(d).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                        return d + " (mode " + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(d))
                                + ") is not searchable by other users, so " + start + " is out of their reach";
                    }
                }
            }
            for (Path f : List.of(javaHome.resolve("bin/java"), javaHome.resolve("lib/server/libjvm.so"), javaHome.resolve("lib/modules"))) {
                if (Files.exists(f) && !Files.getPosixFilePermissions(f).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
                    return f + " is not readable by other users";
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            if (Files.exists(root)) {
                try (var tree = Files.walk(root)) {
                    for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    /** Waits for a line starting with {@code prefix}; fails on ERROR/FAIL lines, EOF or timeout. */
    public String expect(String prefix, Duration timeout) throws InterruptedException {
        return expect(prefix, timeout, null);
    }

    /**
     * As {@link #expect(String, Duration)}, for a node that reports its progress: each line starting with
     * {@code progress} starts the {@code timeout} again, so a slow node that keeps progressing is waited for, and
     * one that stops is not.
     */
    public String expectProgressing(String prefix, String progress, Duration timeout) throws InterruptedException {
        return expect(prefix, timeout, progress);
    }

    private String expect(String prefix, Duration timeout, String progress) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        StringBuilder skipped = new StringBuilder(); // e.g. a JVM crash banner on stdout: quoted on failure
        String lastProgress = null;
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(name + ": no '" + prefix + "' within " + timeout.toMillis() + " ms"
                        + (progress == null ? "" : " of the last progress (" + lastProgress + ")") + skipped + logTail());
            }
            if (line.startsWith(prefix)) {
                engaged = true;
                return line;
            }
            if (progress != null && line.startsWith(progress)) {
                engaged = true;
                lastProgress = line;
                deadline = System.nanoTime() + timeout.toNanos();
                continue;
            }
            if (line.equals("<EOF>") && !engaged && !restarted && skipped.indexOf(JVM_FATAL_ERROR) >= 0) {
                restartAfterJvmCrash(skipped);
                skipped.setLength(0);
                continue;
            }
            if (!line.startsWith("#") && !line.startsWith("[")) {
                engaged = true; // the node's own output (HotSpot's crash banner lines start with '#' or '[')
            }
            if (line.startsWith("FAIL") || line.startsWith("ERROR") || line.equals("<EOF>")) {
                throw new AssertionError(name + ": expected '" + prefix + "' but got: " + line + exitStatus() + skipped + logTail());
            }
            skipped.append("\n  stdout: ").append(line);
        }
    }

    /**
     * The JVM died in its own code before the node printed or was sent anything: the test has not
     * started, so one restart is safe. Seen only under QEMU TCG guests (SIGSEGV at the entry of a
     * freshly C1-compiled JDK method, about once in a few hundred node starts); said loudly on stderr
     * with HotSpot's diagnosis so it stays visible, and never more than once per node.
     */
    private void restartAfterJvmCrash(CharSequence banner) throws InterruptedException {
        String status = exitStatus();
        System.err.println("memchan-test: JVM crash: node " + name + ": the JVM crashed before the node started" + status
                + "; restarting it once" + banner.toString().replace("\n  stdout: ", "\n  ") + hsErrSummary());
        restarted = true;
        try {
            launch();
        } catch (IOException e) {
            throw new AssertionError(name + ": restart after a JVM crash failed: " + e, e);
        }
    }

    /** The lines of HotSpot's error file that say what happened where. */
    private String hsErrSummary() {
        try {
            List<String> keep = Files.readAllLines(errorFile, StandardCharsets.ISO_8859_1).stream()
                    .filter(l -> l.startsWith("siginfo:") || l.startsWith("CPU:") || l.startsWith("Host:")
                            || l.startsWith("Current CompileTask") || l.startsWith("C1 ")
                            || l.startsWith("Instructions:") || l.startsWith("RIP="))
                    .limit(12).toList();
            return keep.isEmpty() ? "" : "\n  " + String.join("\n  ", keep);
        } catch (IOException e) {
            return "\n  (no HotSpot error file: " + e.getMessage() + ")";
        }
    }

    private String exitStatus() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? " (exit status " + process.exitValue() + ")" : " (still running)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Waits for the next line, whatever it is; fails if the node ended first, quoting its stderr. */
    public String next(Duration timeout) throws InterruptedException {
        String line = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new AssertionError(name + ": no output within " + timeout.toMillis() + " ms" + logTail());
        }
        if (line.equals("<EOF>")) {
            throw new AssertionError(name + ": the node ended without a line on stdout" + exitStatus() + logTail());
        }
        return line;
    }

    public void send(String line) throws IOException {
        engaged = true;
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** The process this node started as here: its JVM, or the launcher it runs behind (for signals and handles). */
    public long pid() {
        return process.pid();
    }

    /**
     * The node JVM's process ID as its own host sees it, as the node records it in its member slot: the JVM below
     * any launcher, in its own PID namespace (the innermost ID of /proc/PID/status's NSpid).
     */
    public long hostPid() throws IOException {
        ProcessHandle jvm = java.util.stream.Stream.concat(java.util.stream.Stream.of(process.toHandle()), process.descendants())
                .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst()
                .orElseThrow(() -> new IllegalStateException(name + ": no java process at or below pid " + process.pid()));
        for (String line : Files.readAllLines(Path.of("/proc", "" + jvm.pid(), "status"))) {
            if (line.startsWith("NSpid:")) {
                String[] ids = line.substring(6).trim().split("\\s+");
                return Long.parseLong(ids[ids.length - 1]);
            }
        }
        return jvm.pid();
    }

    /**
     * SIGKILL: no shutdown hook, no cleanup: the cluster must notice on its own. The JVM and its launcher both (a
     * launcher such as nsenter runs the JVM as its child).
     */
    public void kill() throws InterruptedException {
        destroyTree();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    private void destroyTree() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** What {@link #fail()} does, from {@value #FAILURE_BY}: "kill" or "cut"; anything else is refused. */
    static String failureBy() {
        String by = System.getProperty(FAILURE_BY, "kill");
        by = by.isBlank() ? "kill" : by;
        if (!by.equals("kill") && !by.equals("cut")) {
            throw new IllegalArgumentException(FAILURE_BY + " must be kill or cut, not '" + by + "'");
        }
        return by;
    }

    /**
     * The node's failure as the run configures it ({@value #FAILURE_BY}): SIGKILL ({@link #kill()}), or its network
     * namespace's link cut at the hub's bridge, the process left running unreachable (it is killed and the link
     * restored when this node is closed, so later nodes of that namespace join as usual). A cut is refused when
     * the node has no namespace launcher or another open node shares its namespace.
     */
    public void fail() throws IOException, InterruptedException {
        if (failureBy().equals("kill")) {
            kill();
            return;
        }
        String ns = namespace(launcher);
        for (NodeProcess other : OPEN) {
            if (other != this && other.process.isAlive() && other.launcher.size() > 3 && other.launcher.get(3).equals(ns)) {
                throw new IllegalStateException(FAILURE_BY + "=cut: node " + other.name + " shares namespace " + ns
                        + " with " + name + ", so a cut of its link would fail both (give the run more node namespaces)");
            }
        }
        link(ns, "down");
        cutNamespace = ns;
    }

    /** The network namespace of an {@code ip netns exec NS ...} launcher, or a clear refusal. */
    static String namespace(List<String> launcher) {
        if (launcher.size() < 4 || !launcher.subList(0, 3).equals(List.of("ip", "netns", "exec"))) {
            throw new IllegalStateException(FAILURE_BY + "=cut needs nodes started behind 'ip netns exec NAMESPACE' launchers ("
                    + NODE_LAUNCHERS + "), not " + (launcher.isEmpty() ? "none" : "'" + String.join(" ", launcher) + "'"));
        }
        return launcher.get(3);
    }

    /** Sets namespace ns's port on its hub's bridge (harness/netns.py: port n&lt;i&gt; of NET-hub for NET-n&lt;i&gt;) up or down. */
    private static void link(String ns, String state) throws IOException, InterruptedException {
        int dash = ns.lastIndexOf('-');
        if (dash < 0 || !ns.substring(dash + 1).matches("n\\d+")) {
            throw new IllegalStateException(FAILURE_BY + "=cut: " + ns + " is not a node namespace of harness/netns.py (NET-n<i>)");
        }
        run(List.of("ip", "-n", ns.substring(0, dash) + "-hub", "link", "set", ns.substring(dash + 1), state));
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + said);
        }
    }

    public int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + ": still running after " + timeout.toMillis() + " ms" + logTail());
        }
        return process.exitValue();
    }

    public String logTail() {
        try {
            // decoded leniently: a JVM's fatal-error text need not be UTF-8, and must not be lost
            List<String> all = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
            return all.isEmpty() ? " (stderr empty)" : "\n--- " + name + " stderr ---\n" + String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            return " (stderr log unreadable: " + e + ")";
        }
    }

    /**
     * The counting scenarios' round: GO to every node, DONE from every node, then REPORT to the first one;
     * returns its COUNT line.
     */
    public static String countRound(java.util.List<NodeProcess> nodes, Duration timeout) throws IOException, InterruptedException {
        for (NodeProcess p : nodes) {
            p.send("GO");
        }
        for (NodeProcess p : nodes) {
            p.expect("DONE", timeout);
        }
        nodes.get(0).send("REPORT");
        return nodes.get(0).expect("COUNT", timeout);
    }

    /**
     * QUIT, then SIGKILL if the node has not ended within its allowance. Interrupted, it kills the node at once
     * and keeps the thread's interrupt status (not InterruptedException: a try-with-resources would otherwise
     * have to handle it on every exit).
     */
    @Override
    public void close() {
        OPEN.remove(this);
        if (cutNamespace != null) {
            // the failed node, unreachable: killed with its namespace's TCP sockets (a lost host keeps none; the
            // kernel would otherwise send what the killed process left queued once the link is back), then the
            // link restored for the nodes after it
            try {
                kill();
                run(List.of("ip", "netns", "exec", cutNamespace, "ss", "-K", "-t"));
                link(cutNamespace, "up");
                cutNamespace = null;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("the restore of " + cutNamespace + "'s link after a cut", e);
            } catch (InterruptedException e) {
                destroyTree();
                Thread.currentThread().interrupt();
            }
        }
        if (process.isAlive()) {
            try {
                send("QUIT");
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!process.waitFor(TestBackend.allowance(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS)) {
                    destroyTree();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                destroyTree();
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(log);
            Files.deleteIfExists(errorFile);
        } catch (IOException ignored) {
            // temp file
        }
    }
}
