package dev.memchan.tools.mcctl;

import dev.memchan.admin.Hub;
import dev.memchan.layout.Regs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/** {@code mcctl hub}: the hub of a ucx:// fabric in the foreground, until SIGINT or SIGTERM. */
@Command(name = "hub", mixinStandardHelpOptions = true,
        description = {"Run the hub of a ucx://HOST:PORT/NAME fabric in the foreground: it listens at HOST:PORT only, "
                + "sequences every store of the fabric and admits the nodes holding the secret. Prints where it listens "
                + "(one line) and, on SIGINT or SIGTERM, its counts (joins admitted and refused, hosts, processes, nodes).",
                "With --standby-of, the standby of the hub there: it joins that hub with the secret, keeps its state, and "
                + "takes over when that hub is gone; nodes name both: ucx://HUB,STANDBY/NAME.",
                "Make HOST:PORT reachable by the cluster's hosts only (docs/ucx.md)."},
        footerHeading = "%nExamples:%n", footer = {"  mcctl secret create /etc/memchan/lab.secret",
        "  mcctl hub ucx://10.0.0.1:7300/lab --secret /etc/memchan/lab.secret",
        "  mcctl hub ucx://10.0.0.2:7300/lab --secret /etc/memchan/lab.secret --standby-of 10.0.0.1:7300"})
final class HubCommand extends Base {
    /** How long the exit report waits for the hub's thread. */
    private static final Duration COUNTS_WAIT = Duration.ofSeconds(5);

    @Parameters(index = "0", paramLabel = "LOCATION", description = "ucx://HOST:PORT/NAME.")
    String hubLocation;

    @Option(names = "--secret", required = true, paramLabel = "FILE",
            description = "The fabric's secret (mode 0600; 'mcctl secret create FILE' makes one).")
    Path secret;

    @Option(names = "--standby-of", paramLabel = "HOST:PORT",
            description = "Run as the standby of the hub at HOST:PORT (its geometry, not the options').")
    String standbyOf;

    @Option(names = "--fabric-size", paramLabel = "BYTES", description = "The fabric's size (default ${DEFAULT-VALUE}).")
    long fabricSize = Regs.SF_DEFAULT_FILE_SIZE;

    @Option(names = "--page-size", paramLabel = "BYTES", description = "Network page size (default ${DEFAULT-VALUE}).")
    int pageSize = Regs.SF_DEFAULT_PAGE_SIZE;

    @Option(names = "--max-nodes", paramLabel = "N", description = "Node IDs (default ${DEFAULT-VALUE}).")
    int maxNodes = Regs.SF_DEFAULT_MAX_NODES;

    @Override
    public Integer call() throws InterruptedException {
        Hub hub = standbyOf == null ? Hub.start(hubLocation, secret, fabricSize, pageSize, maxNodes)
                : Hub.standby(hubLocation, secret, standbyOf);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                report(hub.counts(COUNTS_WAIT));
            } finally {
                hub.close();
                stopped.countDown();
            }
        }, "mcctl-hub-stop"));
        if (json()) {
            printJson(Json.obj("hub", hub.location(), "pid", ProcessHandle.current().pid()));
        } else {
            out().printf("%s of %s listening (pid %d); SIGINT or SIGTERM to stop%n", standbyOf == null ? "hub" : "standby hub", hub.location(),
                    ProcessHandle.current().pid());
            out().flush();
        }
        stopped.await();
        return Exit.OK;
    }

    private void report(Hub.Counts c) {
        if (json()) {
            printJson(Json.obj("stopped", hubLocation, "admitted", c.admitted(), "refused", c.refused(), "refused_by", c.refusedBy(),
                    "hosts", c.hosts(), "processes", c.processes(), "nodes", c.nodes()));
        } else {
            out().printf("hub stopped: %d joins admitted, %d refused %s; %d hosts, %d processes, %d nodes at the stop%n",
                    c.admitted(), c.refused(), c.refusedBy(), c.hosts(), c.processes(), c.nodes());
            out().flush();
        }
    }
}
