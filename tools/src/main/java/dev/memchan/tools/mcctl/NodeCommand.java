package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.admin.NodeStatus;
import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.admin.FabricAdmin;
import dev.memchan.admin.SoftFabricView;
import dev.memchan.layout.SoftFabricGeometry;
import dev.memchan.layout.Regs;
import dev.memchan.spi.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;

@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Show or set node IDs; create, join, leave and remove a soft fabric.",
                "On an adapter (dev:) the node ID is the adapter's (NODE_ID, set when the driver loads). "
                        + "On the soft fabric a node is a process: the node ID belongs to the process that joined with it, "
                        + "and 'node join' is that process, holding the node until SIGINT or SIGTERM."},
        subcommands = {NodeCommand.Show.class, NodeCommand.Set.class, NodeCommand.Create.class, NodeCommand.Join.class,
                NodeCommand.Leave.class, NodeCommand.Remove.class},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl node create --fabric shm:lab --nodes 4", "  mcctl node join --fabric shm:lab --node 1",
                "  mcctl node show --fabric shm:lab", "  mcctl node leave --fabric shm:lab --node 1"})
final class NodeCommand extends Base {
    @Override
    public Integer call() {
        return new Show().withSpec(spec).call();
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Node IDs and who holds them: state, pid, incarnation, NODE_ID register.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl node show --fabric shm:lab", "  mcctl node show --json"})
    static final class Show extends Base {
        Show withSpec(picocli.CommandLine.Model.CommandSpec s) {
            this.spec = s;
            return this;
        }

        @Override
        public Integer call() {
            try (AdapterView t = openView()) {
                List<Object> nodes = new ArrayList<>();
                for (int n = 0; n < t.maxNodes(); n++) {
                    NodeStatus i = t.node(n);
                    boolean visible = java.util.Arrays.stream(t.adapters()).anyMatch(a -> a == i.node());
                    nodes.add(Json.obj("node", n, "state", i.state(), "pid", i.pid(), "incarnation", i.incarnation(),
                            "node_id_register", visible ? Counters.nodeIdRegister(t.readRegister(n, Regs.REG_NODE_ID)) : "?"));
                }
                if (json()) {
                    printJson(Json.obj("fabric", t.location(), "kind", t.kind(), "max_nodes", t.maxNodes(), "nodes", nodes));
                    return Exit.OK;
                }
                out().printf("%s: %d node IDs (%s)%n", t.location(), t.maxNodes(),
                        !t.kind().equals("dev") ? t.kind() + " fabric: a node is a process" : "adapter node " + t.adapters()[0]);
                out().printf("%-4s %-8s %-8s %-5s %s%n", "NODE", "STATE", "PID", "INC", "NODE_ID");
                for (Object o : nodes) {
                    @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) o;
                    out().printf("%-4s %-8s %-8s %-5s %s%n", m.get("node"), m.get("state"), m.get("pid"), m.get("incarnation"),
                            m.get("node_id_register"));
                }
                out().flush();
            }
            return Exit.OK;
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Set this node's ID. Adapter (dev:): writes NODE_ID through the driver (root; refused while "
                    + "any process has pages granted) and exits; the ID stays until changed. Soft fabric: a node ID is held "
                    + "by a process, so this claims ID and holds it like 'node join --node ID' until SIGINT or SIGTERM."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl node set 3 --fabric dev:/dev/memchan0",
            "  mcctl node set 3 --fabric shm:lab"})
    static final class Set extends Base {
        @Parameters(paramLabel = "ID", description = "Node ID, 0..MAX_NODES-1.")
        int id;

        @Override
        public Integer call() throws InterruptedException {
            String location = location();
            if (!Targets.isSoft(location)) {
                Syntax.node(id, Regs.MAX_NODES);
                try (Backend adapter = Targets.adapter(location, id)) {
                    if (json()) {
                        printJson(Json.obj("fabric", location, "node", adapter.nodeId()));
                    } else {
                        out().printf("%s: node ID %d%n", location, adapter.nodeId());
                        out().flush();
                    }
                }
                return Exit.OK;
            }
            return Join.hold(this, location, OptionalInt.of(Syntax.node(id, Regs.MAX_NODES)), false);
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a soft fabric file /dev/shm/memchan-NAME (mode 0660). Refuses an existing one.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl node create --fabric shm:lab",
            "  mcctl node create --fabric shm:big --size 64M --page-size 8192 --nodes 32 --group 1001"})
    static final class Create extends Base {
        @Option(names = "--size", defaultValue = "16M", description = "File size, a power of two >= 1M (K/M/G suffix; default ${DEFAULT-VALUE}).")
        String size;

        @Option(names = "--page-size", defaultValue = "4096", description = "Network page size: 4096 or 8192 (default ${DEFAULT-VALUE}).")
        int pageSize;

        @Option(names = "--nodes", defaultValue = "16", description = "Node IDs in the fabric, 2..32 (default ${DEFAULT-VALUE}).")
        int nodes;

        @Option(names = "--group", description = "Group ID to give the file (default: yours).")
        Integer group;

        @Override
        public Integer call() {
            Targets.softName(location(), "node create");
            long bytes = parseSize(size);
            FabricOptions options = FabricOptions.defaults().withGeometry(bytes, pageSize, nodes);
            FabricAdmin.create(location(), group == null ? options : options.withGroup(group));
            try (AdapterView t = Targets.view(location())) {
                if (json()) {
                    printJson(Json.obj("created", t.location(), "file_size", bytes, "page_size", t.pageSize(),
                            "page_count", t.pageCount(), "max_nodes", t.maxNodes()));
                } else {
                    out().printf("created %s: %d bytes, %d pages of %d bytes (%d for users), %d node IDs%n", t.location(), bytes,
                            t.pageCount(), t.pageSize(), t.pageCount() - Regs.SYS_PAGES, t.maxNodes());
                    out().flush();
                }
            }
            return Exit.OK;
        }

        static long parseSize(String s) {
            String t = s.trim().toUpperCase(java.util.Locale.ROOT);
            long mult = 1;
            if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
                mult = switch (t.charAt(t.length() - 1)) {
                    case 'K' -> 1L << 10;
                    case 'M' -> 1L << 20;
                    default -> 1L << 30;
                };
                t = t.substring(0, t.length() - 1);
            }
            try {
                return Math.multiplyExact(Long.parseLong(t), mult);
            } catch (NumberFormatException | ArithmeticException e) {
                throw McctlException.usage("bad --size '" + s + "': use bytes or a K/M/G suffix, e.g. 16M");
            }
        }
    }

    @Command(name = "join", mixinStandardHelpOptions = true,
            description = {"Join the fabric as a node and hold it until SIGINT or SIGTERM (a foreground agent: "
                    + "heartbeats, failure detection and cleanup run in it). Prints one line when joined.",
                    "Soft fabric: this process is the node. Adapter: joins the cluster as the adapter's node."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl node join --fabric shm:lab --node 0",
            "  mcctl node join --fabric shm:lab --create &   # any free ID, creating the fabric if missing"})
    static final class Join extends Base {
        @Option(names = "--node", description = "Node ID to claim (default: the first free one).")
        Integer node;

        @Option(names = "--create", description = "Create the soft fabric (default geometry) when it does not exist.")
        boolean create;

        @Override
        public Integer call() throws InterruptedException {
            return hold(this, location(), Syntax.optionalNode(node), create);
        }

        /**
         * {@code node join --node N} claims a node of its own: a soft-fabric node some process holds is refused
         * (the library would make this process one more process of that node).
         */
        private static void refuseHeld(String location, int node) {
            Targets.softName(location, "node join");
            SoftFabricView view;
            try {
                view = (SoftFabricView) FabricAdmin.view(location);
            } catch (MemchanException e) {
                return; // no fabric yet (--create) or a bad one: Fabric.open says what is wrong
            }
            try (view) {
                if (node < view.maxNodes() && view.joined(node)) {
                    throw McctlException.usage("node ID " + node + " of " + location + " is in use by pid "
                            + SoftFabricGeometry.ownerPid(view.owner(node)) + "; pick another node ID or leave that node first");
                }
            }
        }

        /** Joins as {@code node} (checked: 0..MAX_NODES-1), or as any free node when empty, and holds it. */
        static int hold(Base cmd, String location, OptionalInt node, boolean create) throws InterruptedException {
            Targets.checkDevice(location);
            if (node.isPresent() && Targets.isSoft(location)) {
                refuseHeld(location, node.getAsInt());
            }
            FabricOptions options = Targets.memberOptions().withCreate(create && Targets.isSoft(location));
            Fabric fabric = Fabric.open(location, node.isPresent() ? options.withNodeId(node.getAsInt()) : options);
            CountDownLatch left = new CountDownLatch(1);
            // Fabric's own shutdown hook leaves the cluster on SIGINT/SIGTERM; this one waits for that and says so.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                fabric.close();
                cmd.err().println("mcctl: node " + fabric.nodeId() + " left " + location);
                cmd.err().flush();
                left.countDown();
            }, "mcctl-leave"));
            long pid = ProcessHandle.current().pid();
            if (cmd.json()) {
                cmd.printJson(Json.obj("joined", location, "node", fabric.nodeId(), "pid", pid,
                        "failure_timeout_ms", options.failureTimeout().toMillis()));
            } else {
                cmd.out().printf("joined %s as node %d (pid %d, failure timeout %d ms); SIGINT or SIGTERM to leave%n",
                        location, fabric.nodeId(), pid, options.failureTimeout().toMillis());
                cmd.out().flush();
            }
            left.await();
            return Exit.OK;
        }
    }

    @Command(name = "leave", mixinStandardHelpOptions = true,
            description = {"Make a node leave: sends SIGTERM to the mcctl agent holding it (soft fabric, same host) "
                    + "and waits until it has left. Processes that are not mcctl agents are refused unless --force."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl node leave --fabric shm:lab --node 1"})
    static final class Leave extends Base {
        @Option(names = "--node", required = true, description = "Node ID to release.")
        int node;

        @Option(names = "--force", description = "Also terminate a process that is not an mcctl agent (an application).")
        boolean force;

        @Option(names = "--timeout", defaultValue = "10", description = "Seconds to wait for the node to leave (default ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        @Override
        public Integer call() throws InterruptedException {
            String location = location();
            Targets.softName(location, "node leave");
            try (AdapterView t = Targets.view(location)) {
                Syntax.node(node, t.maxNodes());
                NodeStatus info = t.node(node);
                if (!info.claimed()) {
                    throw McctlException.usage("node " + node + " of " + location + " is not joined; nothing to leave");
                }
                Optional<ProcessHandle> holder = ProcessHandle.of(info.pid());
                if (!info.live() || holder.isEmpty()) {
                    throw McctlException.usage("node " + node + " is held by pid " + info.pid() + ", which is gone or on another host; "
                            + "the other nodes clean it up within the failure timeout");
                }
                String command = holder.get().info().commandLine().orElse("");
                if (!command.contains("dev.memchan.tools") && !force) {
                    throw McctlException.usage("node " + node + " is held by pid " + info.pid() + ", which is not an mcctl agent ("
                            + abbreviate(command) + "); stop that application, or use --force to send it SIGTERM");
                }
                holder.get().destroy();
                long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
                while (t.node(node).claimed() && t.node(node).pid() == info.pid()) {
                    if (System.nanoTime() > deadline) {
                        throw new McctlException(Exit.DEVICE_ERROR, "node " + node + " (pid " + info.pid() + ") did not leave within "
                                + timeoutSeconds + " s; it is still running");
                    }
                    Thread.sleep(20);
                }
                if (json()) {
                    printJson(Json.obj("left", node, "pid", info.pid()));
                } else {
                    out().printf("node %d (pid %d) left %s%n", node, info.pid(), location);
                    out().flush();
                }
            }
            return Exit.OK;
        }

        private static String abbreviate(String s) {
            return s.isEmpty() ? "command unknown" : s.length() > 60 ? s.substring(0, 60) + "..." : s;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = "Remove a soft fabric file. Refused while a live process holds a node, unless --force.",
            footerHeading = "%nExamples:%n", footer = {"  mcctl node remove --fabric shm:lab"})
    static final class Remove extends Base {
        @Option(names = "--force", description = "Remove even while nodes are joined (they keep their mapping until they exit).")
        boolean force;

        @Override
        public Integer call() {
            Targets.softName(location(), "node remove");
            try (AdapterView t = Targets.view(location())) {
                List<Integer> live = new ArrayList<>();
                for (int n = 0; n < t.maxNodes(); n++) {
                    if (t.node(n).live()) {
                        live.add(n);
                    }
                }
                if (!live.isEmpty() && !force) {
                    throw McctlException.usage("nodes " + live + " of " + t.location() + " are joined; make them leave first "
                            + "(mcctl node leave --node N) or use --force");
                }
            }
            FabricAdmin.remove(location());
            if (json()) {
                printJson(Json.obj("removed", location()));
            } else {
                out().println("removed " + location());
                out().flush();
            }
            return Exit.OK;
        }
    }
}
