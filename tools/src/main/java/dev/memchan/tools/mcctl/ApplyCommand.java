package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import dev.memchan.Fabric;
import dev.memchan.MemchanException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

@Command(name = "apply", mixinStandardHelpOptions = true,
        description = {"Apply a declarative cluster configuration (YAML; format in docs/mcctl.md): node IDs, multicast groups, "
                + "regions (page ranges with a route, transmitters and receivers) and single PCT entries.",
                "The whole file is validated against the fabric first; on any problem every problem is listed with its line "
                        + "and nothing is written (exit 2, or 1 with --check). --check validates only."},
        footerHeading = "%nExamples:%n",
        footer = {"  mcctl apply --check cluster.yaml", "  mcctl apply cluster.yaml --fabric shm:lab", "",
                "  # cluster.yaml", "  nodes: [0, 1]", "  groups: {1: [0, 1]}", "  regions:",
                "    - {name: telemetry, pages: 100-103, route: node:1, transmitters: [0], receivers: [1]}",
                "  pct:", "    - {node: 1, pages: 200, tx: node:0, ack: true}"})
final class ApplyCommand extends Base {
    @Parameters(paramLabel = "FILE", description = "The configuration file (YAML).")
    Path file;

    @Option(names = "--check", description = "Validate only; write nothing (exit 1 when the file has problems).")
    boolean check;

    @Override
    public Integer call() {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw McctlException.usage("no such config file: " + file);
        } catch (MalformedInputException e) {
            throw McctlException.usage(file + " is not UTF-8 text");
        } catch (IOException e) {
            throw McctlException.usage("cannot read " + file + ": " + e.getMessage());
        }
        try (AdapterView t = openView()) {
            ClusterConfig config = ClusterConfig.check(file.toString(), text, t);
            List<ClusterConfig.Problem> problems = config.problems();
            ClusterConfig.Plan plan = config.plan();
            if (!problems.isEmpty()) {
                return refuse(problems);
            }
            if (!check) {
                write(t, plan);
            }
            if (json()) {
                printJson(Json.obj("file", file.toString(), "fabric", t.location(), "valid", true, "applied", !check,
                        "nodes", plan.nodes(), "groups", plan.groups().size(), "regions", plan.regions(), "pct_writes", plan.writes().size()));
            } else {
                out().printf("%s: valid: %d nodes, %d multicast groups, %d regions, %d PCT entries%s%n", file, plan.nodes().size(),
                        plan.groups().size(), plan.regions(), plan.writes().size(), check ? " (checked only, nothing written)" : "; applied to " + t.location());
                out().flush();
            }
        }
        return Exit.OK;
    }

    private int refuse(List<ClusterConfig.Problem> problems) {
        if (json()) {
            List<Object> rows = new ArrayList<>();
            for (ClusterConfig.Problem p : problems) {
                rows.add(Json.obj("line", p.line(), "message", p.message()));
            }
            printJson(Json.obj("file", file.toString(), "valid", false, "applied", false, "problems", rows));
        }
        for (ClusterConfig.Problem p : problems) {
            err().println(ClusterConfig.format(file.toString(), p));
        }
        err().printf("mcctl: %s has %d problem%s; nothing was changed%n", file, problems.size(), problems.size() == 1 ? "" : "s");
        err().flush();
        return check ? Exit.CHECK_FAILED : Exit.USAGE;
    }

    /**
     * As one cluster member of this process: groups first (each a directory change under the cluster
     * lock, all undone if a later step is refused), then the PCT batch and its static carve-outs as one
     * transaction of the library ({@link dev.memchan.admin.ClusterAdmin#writePct}).
     */
    private static void write(AdapterView t, ClusterConfig.Plan plan) {
        try (Fabric member = Targets.join(t.location())) {
            Map<Integer, Integer> before = new java.util.TreeMap<>();
            for (int g : plan.groups().keySet()) {
                before.put(g, member.multicastGroup(g));
            }
            Targets.setGroups(member, plan.groups());
            try {
                member.admin().writePct(t, plan.writes());
            } catch (MemchanException | McctlException e) {
                Targets.setGroups(member, before);
                throw e;
            }
        }
    }

}
