package dev.memchan.tools.mcctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memchan.MemchanException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The picocli model of mcctl, its exit-code mapping and its small parsers, without a fabric. */
class McctlModelTest {

    private static List<CommandLine> allCommands(CommandLine cl) {
        List<CommandLine> out = new ArrayList<>();
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (!out.contains(sub)) {
                out.addAll(allCommands(sub));
            }
        }
        return out;
    }

    private static List<String> path(CommandLine c) {
        List<String> p = new ArrayList<>();
        for (CommandLine x = c; x.getParent() != null; x = x.getParent()) {
            p.addFirst(x.getCommandName());
        }
        return p;
    }

    record Result(int code, String out, String err) {
    }

    /** Runs args as main does: on the command line of the subcommand they name. */
    static Result run(String... args) {
        return runOn(Mcctl.commandLine(args), args);
    }

    static Result runOn(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void theCommandLineOfOneSubcommandRunsItAsTheWholeCommandLineDoes() {
        List<String> all = List.copyOf(Mcctl.commandLine().getSubcommands().keySet());
        for (CommandLine c : allCommands(Mcctl.commandLine())) {
            List<String> p = path(c);
            if (p.isEmpty()) {
                continue;
            }
            for (List<String> front : List.of(List.<String>of(), List.of("--fabric", "shm:x", "--json"),
                    List.of("--failure-timeout", "5000", "-v"))) {
                List<String> a = new ArrayList<>(front);
                a.addAll(p);
                a.add("--help");
                String[] args = a.toArray(String[]::new);
                CommandLine lazy = Mcctl.commandLine(args);
                assertEquals(p.getFirst().equals("help") ? all : List.of(p.getFirst()),
                        List.copyOf(lazy.getSubcommands().keySet()), String.join(" ", args));
                assertEquals(runOn(Mcctl.commandLine(), args), runOn(lazy, args), String.join(" ", args));
            }
        }
        // no subcommand, an unknown one, a misspelt option: the whole command line, its usage and suggestions
        for (String[] args : List.of(new String[0], new String[]{"--json"}, new String[]{"stauts"},
                new String[]{"--fabric", "status"}, new String[]{"help", "node"})) {
            assertEquals(all, List.copyOf(Mcctl.commandLine(args).getSubcommands().keySet()), String.join(" ", args));
            assertEquals(runOn(Mcctl.commandLine(), args), runOn(Mcctl.commandLine(args), args), String.join(" ", args));
        }
    }

    @Test
    void everyCommandParsesHasHelpWithExamplesAndADescription() {
        List<CommandLine> commands = allCommands(Mcctl.commandLine());
        List<String> names = commands.stream().map(c -> String.join(" ", path(c))).toList();
        for (String expected : List.of("status", "node", "node show", "node set", "node create", "node join", "node leave",
                "node remove", "pct", "pct show", "pct set", "pct clear", "apply", "selftest", "bench", "bench pingpong",
                "bench bandwidth", "bench lock", "monitor")) {
            assertTrue(names.contains(expected), "missing command " + expected + " in " + names);
        }
        for (CommandLine c : commands) {
            if (c.getCommandName().equals("help")) {
                continue;
            }
            List<String> args = new ArrayList<>(path(c));
            args.add("--help");
            Result r = run(args.toArray(String[]::new));
            assertEquals(0, r.code(), "--help of " + args);
            assertTrue(r.out().contains("Examples:"), "no examples in the help of " + args + ":\n" + r.out());
            assertTrue(r.out().contains("  mcctl " + (path(c).isEmpty() ? "" : path(c).getFirst())), "examples of " + args + " do not show mcctl");
            assertTrue(r.out().contains("--json") && r.out().contains("--fabric"), "inherited options missing in " + args);
            assertFalse(c.getCommandSpec().usageMessage().description().length == 0, "no description for " + args);
        }
    }

    @Test
    void subcommandOptionsParse() {
        CommandLine cl = Mcctl.commandLine();
        CommandLine.ParseResult r = cl.parseArgs("--fabric", "shm:x", "pct", "set", "--node", "1", "100-103", "--tx", "node:0",
                "--local-copy", "--ack", "--rx", "--irq", "--json");
        CommandLine.ParseResult leaf = r.subcommand().subcommand();
        assertEquals("set", leaf.commandSpec().name());
        PctCommand.Set set = leaf.commandSpec().commandLine().getCommand();
        assertEquals(1, set.node);
        assertEquals("100-103", set.pages);
        assertEquals("node:0", set.txDest);
        assertTrue(set.localCopy && set.ack && set.irq && set.rx);
        Mcctl root = cl.getCommand();
        assertEquals("shm:x", root.fabric);
        assertTrue(root.json, "--json after the subcommand sets the inherited root option");

        cl = Mcctl.commandLine();
        cl.parseArgs("pct", "set", "--node", "1", "7", "--no-rx");
        PctCommand.Set noRx = cl.getSubcommands().get("pct").getSubcommands().get("set").getCommand();
        assertEquals(Boolean.FALSE, noRx.rx);

        cl = Mcctl.commandLine();
        cl.parseArgs("bench", "bandwidth", "--sizes", "64,4096", "--bytes", "1M", "--csv");
        BenchCommand.Bandwidth bw = cl.getSubcommands().get("bench").getSubcommands().get("bandwidth").getCommand();
        assertEquals(List.of(64, 4096), bw.sizes);
        assertTrue(bw.csv);

        cl = Mcctl.commandLine();
        cl.parseArgs("selftest", "--seed", "0x2a", "--pages", "6");
        SelftestCommand st = cl.getSubcommands().get("selftest").getCommand();
        assertEquals("0x2a", st.seed);
        assertEquals(6, st.testPages);
    }

    @Test
    void usageErrorsExitTwoWithOneLine() {
        for (String[] args : List.of(new String[]{"pct", "set"}, new String[]{"status", "--bogus"}, new String[]{"frobnicate"},
                new String[]{"node", "set", "notanumber"}, new String[]{"monitor", "--interval", "x"})) {
            Result r = run(args);
            assertEquals(Exit.USAGE, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line on stderr for " + String.join(" ", args) + ":\n" + r.err());
            assertTrue(r.err().startsWith("mcctl: "), r.err());
        }
        Result none = run();
        assertEquals(Exit.USAGE, none.code());
    }

    @Test
    void inputErrorsFoundBeforeAnyFabricIsOpenedExitTwo() {
        Result bad = run("--fabric", "nonsense", "status");
        assertEquals(Exit.USAGE, bad.code(), bad.err());
        assertTrue(bad.err().contains("shm:NAME"), bad.err());
        Result seed = run("--fabric", "shm:mcctl-unit-none", "selftest", "--seed", "zzz");
        assertEquals(Exit.USAGE, seed.code(), seed.err());
        Result pages = run("--fabric", "shm:mcctl-unit-none", "selftest", "--pages", "1");
        assertEquals(Exit.USAGE, pages.code(), pages.err());
    }

    @Test
    void exitCodesFollowTheKindOfFailure() {
        Map<MemchanException.Kind, Integer> expected = Map.of(
                MemchanException.Kind.INVALID_ARGUMENT, 2, MemchanException.Kind.IN_USE, 2,
                MemchanException.Kind.NOT_FOUND, 3, MemchanException.Kind.PERMISSION, 3, MemchanException.Kind.NATIVE_ACCESS, 3,
                MemchanException.Kind.BAD_FORMAT, 4, MemchanException.Kind.DEVICE_ERROR, 4, MemchanException.Kind.TIMEOUT, 4,
                MemchanException.Kind.CLOSED, 4, MemchanException.Kind.UNSUPPORTED, 3);
        assertEquals(MemchanException.Kind.values().length, expected.size(), "every Kind has an expected exit code");
        for (var e : expected.entrySet()) {
            assertEquals(e.getValue(), Exit.of(e.getKey()), e.getKey().toString());
            StringWriter err = new StringWriter();
            int code = Mcctl.report(new PrintWriter(err), new MemchanException(e.getKey(), "what is wrong; what to do"), false);
            assertEquals(e.getValue(), code);
            assertEquals("mcctl: what is wrong; what to do", err.toString().strip());
        }
        StringWriter err = new StringWriter();
        assertEquals(Exit.NO_DEVICE, Mcctl.report(new PrintWriter(err), new McctlException(Exit.NO_DEVICE, "no device"), true));
        assertTrue(err.toString().lines().count() > 1, "--verbose adds the stack trace");
        assertEquals(Exit.DEVICE_ERROR, Mcctl.report(new PrintWriter(new StringWriter()), new IllegalStateException("bug"), false));
    }

    @Test
    void pageRangesAndDestinationsParseAndRefuseBadInput() {
        assertEquals(new Syntax.Pages(5, 5), Syntax.pages("5", 100));
        assertEquals(new Syntax.Pages(10, 13), Syntax.pages("10-13", 100));
        assertEquals(new Syntax.Pages(10, 13), Syntax.pages("10+4", 100));
        for (String bad : List.of("", "x", "5-3", "-1", "10+0", "99-100", "1-2-3")) {
            McctlException e = assertThrows(McctlException.class, () -> Syntax.pages(bad, 100), bad);
            assertEquals(Exit.USAGE, e.exitCode());
        }
        assertEquals(-1, Syntax.route("off", 4));
        assertEquals(0x0300, Syntax.route("node:3", 4));
        assertEquals(0x10, Syntax.route("broadcast", 4));
        assertEquals(0x0520, Syntax.route("group:5", 4));
        for (String bad : List.of("node:4", "node:-1", "group:16", "nodes:1", "foo", "node:x")) {
            assertThrows(McctlException.class, () -> Syntax.route(bad, 4), bad);
        }
    }

    @Test
    void randomStageGeneratorIsXorshift64Star() {
        long[] state = {1};
        assertEquals(0x47e4ce4b896cdd1dL, SelftestCommand.xorshift64star(state));
        assertEquals(0xabcfa6a8e079651dL, SelftestCommand.xorshift64star(state));
        assertEquals(42, SelftestCommand.parseSeed("0x2a"));
        assertEquals(42, SelftestCommand.parseSeed("42"));
        assertThrows(McctlException.class, () -> SelftestCommand.parseSeed("0"));
    }

    @Test
    void buildIdentityFromItsRegisters() {
        assertEquals(Map.of("stamped", false), StatusCommand.build(0, 0));
        Map<String, Object> b = StatusCommand.build(0x0a2b3c4d, 1795842367);
        assertEquals(true, b.get("stamped"));
        assertEquals("0a2b3c4d", b.get("git"), "eight hex digits, leading zeros kept");
        assertEquals("2026-11-28T05:06:07Z", b.get("time"));
        // BUILD_TIME is unsigned: past 2038 it stays a time after 1970
        assertEquals("2106-02-07T06:28:15Z", StatusCommand.build(1, -1).get("time"));
    }

    @Test
    void jsonWriterIsStrictJson() throws Exception {
        String text = Json.write(Json.obj("s", "quote \" backslash \\ newline \n tab \t ctl \u0001", "n", 42, "d", 1.5,
                "nan", Double.NaN, "b", true, "null", null, "list", List.of(1, "two"), "arr", new int[]{1, 2}, "m", Map.of("k", "v")));
        JsonNode node = new ObjectMapper().readTree(text);
        assertEquals("quote \" backslash \\ newline \n tab \t ctl \u0001", node.get("s").asText());
        assertEquals(42, node.get("n").asInt());
        assertTrue(node.get("nan").isNull());
        assertEquals(2, node.get("arr").size());
    }
}
