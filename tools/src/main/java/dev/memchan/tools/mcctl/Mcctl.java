package dev.memchan.tools.mcctl;

import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import dev.memchan.layout.Regs;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * mcctl: configuration, self-test, status and benchmarks of a memchan cluster (docs/mcctl.md).
 */
@Command(name = "mcctl", mixinStandardHelpOptions = true, versionProvider = Mcctl.Versions.class,
        description = {"Configure and check a memchan cluster: node IDs, the page control table (PCT), "
                + "a declarative cluster config, the loopback self-test, status, live counters and benchmarks.",
                "",
                "Fabric: --fabric shm:NAME (soft fabric /dev/shm/memchan-NAME) or dev:/dev/memchanN (adapter). "
                        + "Default: $MEMCHAN_FABRIC, else dev:/dev/memchan0 when it exists, else shm:default."},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl node create --fabric shm:lab",
                "  mcctl node join --fabric shm:lab --node 0 &",
                "  mcctl status --fabric shm:lab",
                "  mcctl selftest --fabric shm:lab --seed 42",
                "",
                "Exit codes: 0 ok, 1 self-test or check failed, 2 usage or invalid input, 3 no device or no permission, "
                        + "4 device error."})
public final class Mcctl implements Callable<Integer> {

    @Option(names = "--fabric", scope = ScopeType.INHERIT, paramLabel = "LOCATION",
            description = "shm:NAME, dev:/dev/memchanN or ucx://HOST:PORT/NAME (default: $MEMCHAN_FABRIC, /dev/memchan0 when present, else shm:default)")
    String fabric;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print data as JSON (one document, or one line per sample).")
    boolean json;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "Add stack traces to error messages.")
    boolean verbose;

    /**
     * The failure timeout of the member mcctl joins as (node join, bench, selftest, apply, PCT changes): how
     * long another node's heartbeat may stop before it is declared dead and its locks are released.
     */
    @Option(names = "--failure-timeout", scope = ScopeType.INHERIT, paramLabel = "MS",
            defaultValue = "${env:MEMCHAN_FAILURE_TIMEOUT_MS}",
            description = "Milliseconds a node's heartbeat may stop before mcctl's member declares it dead "
                    + "(default: $MEMCHAN_FAILURE_TIMEOUT_MS, else the library's " + Regs.SYS_DEFAULT_FAILURE_TIMEOUT_MS
                    + " ms; at least twice the heartbeat period, " + Regs.SYS_DEFAULT_HEARTBEAT_MS + " ms). "
                    + "Slow hosts (emulated boards) need seconds.")
    void failureTimeout(Long ms) {
        Targets.failureTimeout(spec.commandLine(), ms);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Exit.USAGE;
    }

    /** The resolved fabric location. */
    String location() {
        return Targets.resolve(fabric);
    }

    /** The root options of whatever command is running. */
    static Mcctl root(CommandLine.Model.CommandSpec spec) {
        return (Mcctl) spec.root().userObject();
    }

    /**
     * The subcommands, in the order --help lists them. Registered by {@link #commandLine(String...)}
     * rather than in the annotation: picocli builds each one's model by reflection, which is most of a
     * command's start-up under an emulator (tens of ms on a host, seconds in a TCG guest).
     */
    private static final List<String> SUBCOMMANDS =
            List.of("status", "node", "pct", "apply", "selftest", "bench", "monitor", "hub", "secret", "help");

    private static Object subcommand(String name) {
        return switch (name) {
            case "status" -> new StatusCommand();
            case "node" -> new NodeCommand();
            case "pct" -> new PctCommand();
            case "apply" -> new ApplyCommand();
            case "selftest" -> new SelftestCommand();
            case "bench" -> new BenchCommand();
            case "monitor" -> new MonitorCommand();
            case "hub" -> new HubCommand();
            case "secret" -> new SecretCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** The root options that take a value in the next argument (scanned by {@link #subcommandOf}). */
    private static final List<String> ROOT_OPTIONS_WITH_VALUE = List.of("--fabric", "--failure-timeout");

    /** mcctl's whole command line: every subcommand. */
    public static CommandLine commandLine() {
        return build(null);
    }

    /**
     * The command line that runs {@code args}: the one subcommand they name, or every subcommand when they
     * name none, an unknown one or {@code help} (so that usage, suggestions and errors are those of the
     * whole command line). Running {@code args} on it does what running them on {@link #commandLine()} does.
     */
    public static CommandLine commandLine(String... args) {
        return build(subcommandOf(args));
    }

    /** The command line with one subcommand ({@code only}) or, for null, every one. */
    private static CommandLine build(String only) {
        Targets.failureTimeout(null, null);     // an earlier command line of this JVM set none for this one
        CommandLine cl = new CommandLine(new Mcctl());
        for (String name : SUBCOMMANDS) {
            if (only == null || only.equals(name)) {
                cl.addSubcommand(name, subcommand(name));
            }
        }
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            Mcctl root = (Mcctl) cmd.getCommandSpec().root().userObject();
            return report(cmd.getErr(), e, root.verbose);
        });
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println("mcctl: " + e.getMessage() + " (see: " + cmd.getCommandSpec().qualifiedName() + " --help)");
            cmd.getErr().flush();
            return Exit.USAGE;
        });
        return cl;
    }

    /** One line on stderr (plus the stack trace with --verbose); returns the exit code. */
    static int report(PrintWriter err, Exception e, boolean verbose) {
        int code;
        String message;
        switch (e) {
            case McctlException m -> {
                code = m.exitCode();
                message = m.getMessage();
            }
            case MemchanException m -> {
                code = Exit.of(m.kind());
                message = m.getMessage();
            }
            case IOException io -> {
                code = Exit.USAGE;
                message = io.getMessage();
            }
            default -> {
                code = Exit.DEVICE_ERROR;
                message = "internal error: " + e + " (rerun with --verbose and report it)";
            }
        }
        err.println("mcctl: " + message);
        if (verbose) {
            e.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    /** The subcommand args name (their first argument that is neither an option nor its value), if it is one of ours and not help. */
    static String subcommandOf(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (ROOT_OPTIONS_WITH_VALUE.contains(a)) {
                i++;
            } else if (!a.startsWith("-")) {
                return SUBCOMMANDS.contains(a) && !a.equals("help") ? a : null;
            }
        }
        return null;
    }

    public static void main(String[] args) {
        int code = commandLine(args).execute(args);
        System.out.flush();
        System.exit(code);
    }

    /** --version: mcctl and library, register map, driver and adapters (when present). */
    static final class Versions implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            List<String> lines = new ArrayList<>();
            lines.add("mcctl " + artifactVersion(Mcctl.class, "memchan-tools"));
            lines.add("library memchan-api " + artifactVersion(Fabric.class, "memchan-api") + ", register map "
                    + Regs.VERSION_MAJOR + "." + Regs.VERSION_MINOR + ", soft fabric layout " + Regs.SF_VERSION);
            Path module = Path.of("/sys/module/memchan");
            if (Files.isDirectory(module)) {
                lines.add("driver memchan " + readFirstLine(module.resolve("version"), "(loaded, no version attribute)"));
            } else {
                lines.add("driver: not loaded");
            }
            Path cls = Path.of("/sys/class/memchan");
            if (Files.isDirectory(cls)) {
                try (Stream<Path> devs = Files.list(cls)) {
                    devs.sorted().forEach(d -> lines.add("adapter " + d.getFileName() + ": backend "
                            + readFirstLine(d.resolve("backend"), "?") + ", firmware/register map " + readFirstLine(d.resolve("version"), "?")));
                } catch (IOException ignored) {
                    lines.add("adapters: /sys/class/memchan unreadable");
                }
            } else {
                lines.add("adapters: none (no /sys/class/memchan)");
            }
            lines.add("java " + Runtime.version());
            return lines.toArray(String[]::new);
        }

        static String artifactVersion(Class<?> cls, String artifact) {
            try (InputStream in = cls.getResourceAsStream("/META-INF/maven/dev.memchan/" + artifact + "/pom.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    return p.getProperty("version", "unknown");
                }
            } catch (IOException ignored) {
                // fall through
            }
            String v = cls.getPackage().getImplementationVersion();
            return v != null ? v : "(development build)";
        }

        static String readFirstLine(Path p, String fallback) {
            try {
                List<String> l = Files.readAllLines(p);
                return l.isEmpty() ? fallback : l.getFirst().trim();
            } catch (IOException | SecurityException e) {
                return fallback;
            }
        }
    }
}
