package dev.memchan.tools.mcctl;

import dev.memchan.admin.AdapterView;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** What every mcctl command has: the root options, its output streams and the view of the fabric's adapters. */
@CommandLine.Command
abstract class Base implements Callable<Integer> {
    @CommandLine.Spec
    CommandSpec spec;

    Mcctl root() {
        return Mcctl.root(spec);
    }

    boolean json() {
        return root().json;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    String location() {
        return root().location();
    }

    AdapterView openView() {
        return Targets.view(location());
    }

    void printJson(Object value) {
        out().println(Json.write(value));
        out().flush();
    }

    /** True when stdout is a terminal (progress bars, refresh in place). */
    static boolean terminal() {
        return System.console() != null && System.console().isTerminal();
    }
}
