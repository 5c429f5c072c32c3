"""The harness's tables: every test of the test command is a row here.

HOST      host-side steps (builds and checks that start no guest)
BOOTS     QEMU boots of the driver: guests, their devices, cables or hub, fault knobs, the guest
          test (native/tests/guest.sh dispatches by name), memory, time bound, usual time, needs
FIRMWARE  the firmware benches and jobs (firmware/), run in the firmware lane (lane.py)

"usual" is the time a passing run usually takes on an idle 2-core machine (seconds, rough, from
docs/performance.md); the progress lines compare the elapsed time with it. "default=False" rows
run only when selected by name (-k).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

# ---------------------------------------------------------------------------------------------
# Three lanes run at once (harness/README.md): the main sequence (the host steps, then the boots,
# in table order), the side lane (the rows with lane="side", in table order, each started as soon
# as what it needs is made, beside the main sequence) and the firmware lane (idle class).
#
# host-side steps, in the order they run. phase: "early" before the firmware lane starts (what it
# shares with the boots is built outside the idle class first), "java" the Java build's tests,
# "native" the driver's checks (before the boots). snapshot: the step makes or uses the Java
# snapshot (a package build in the checkout, which a side lane's mvn verify waits for). argv: a
# side-lane step's command (run in the checkout, must exit 0); a side-lane step without one is its
# function in test_host.py, started once the session fixtures it needs are made (checks the boots
# do not wait for: they run beside the first boots). beside: a side-lane step starts when the main
# sequence reaches this row (when it is selected), so that it runs beside a boot that leaves a core
# free (a board guest has one vCPU) rather than beside one with two


@dataclass
class Host:
    name: str
    phase: str
    usual: int
    doc: str
    lane: str = "main"
    snapshot: bool = False
    argv: Optional[list] = None
    beside: Optional[str] = None
    default: bool = True
    needs: tuple = ()   # a side-lane step of test_host.py: the session fixtures it uses (conftest.MADE)


HOST = [
    Host("regmap", "early", 2, "generated files (RTL package and register block, C headers, Java constants, "
         "docs, vectors) are up to date, no layout typed by hand, and the scans' negative controls fail as they must"),
    Host("uapi", "early", 2, "the Java FFM bindings generated with libclang from the uapi header are up to date"),
    Host("ucx-bindings", "early", 3, "the Java FFM definitions generated with libclang from UCX's ucp.h (UcpDefs.java) "
         "are up to date: java-api/gen/ucp_gen.py --check regenerates them into a temporary directory and diffs"),
    Host("cosim-model", "early", 20, "the co-simulated board's 2-adapter device process builds "
         "(firmware/cosim/build.sh, stamped), before the firmware lane and the boots share it"),
    Host("java-build", "java", 30, "java-api and mcctl build (package), snapshot for the guests with mcctl's "
         "AOT cache, the JUnit console launcher", snapshot=True),
    Host("mvn-verify", "java", 290, "mvn verify: unit tests, the soft-fabric conformance suite, mcctl",
         lane="side", argv=["scripts/mvn", "verify"], beside="board-loop"),
    Host("ucx-conformance", "java", 250, "the conformance suite, unchanged, on ucx:// over TCP loopback "
         "(scripts/conformance-ucx: a hub process, the suite's node processes on this host)",
         lane="side", argv=["scripts/conformance-ucx"], beside="board-java"),
    Host("c-reference", "java", 1, "the C benchmark reference compiles warning-free"),
    Host("netns", "java", 20, "network namespaces joined by veth on a hub's bridge (harness/netns.py): pings, "
         "ucx_perftest and the UCX test peers across them, 5 % loss, a cut link, NodeProcess's netns launchers, "
         "teardown leaving nothing; needs root, netns, veth, bridge, nf_tables",
         lane="side", needs=("env", "java_snapshot")),
    Host("ucx-netns-tools", "java", 40, "mcctl and the demo on ucx:// across network namespaces "
         "(harness/ucx_netns_tools.py): mcctl hub in the hub's, bench serve and status in node 1, bench pingpong "
         "from node 2, the demo's responder and initiator in nodes 1 and 2, the hub's counts; needs root",
         lane="side", argv=["python3", "harness/ucx_netns_tools.py"], beside="board-java"),
    Host("ucx-netns-loss", "java", 400, "the conformance suite, unchanged, on ucx:// across network namespaces "
         "with 5 % loss at every node both ways (scripts/conformance-ucx-netns loss: the hub in the hub's namespace, the "
         "test JVM in node 1, node JVMs in nodes 2..4, each namespace a host; TCP's rto_min 10 ms; the loss rules' "
         "counters must show drops); needs root, netns, veth, bridge, nf_tables",
         lane="side", argv=["scripts/conformance-ucx-netns", "loss"], beside="board-java", default=False),
    Host("ucx-netns-cut", "java", 60, "the failure tests on ucx:// across network namespaces with each failure "
         "a node's link cut (scripts/conformance-ucx-netns cut: memchan.test.failureBy=cut), stores between two "
         "survivors arriving in order through a third node's cut; needs root, netns, veth, bridge",
         lane="side", argv=["scripts/conformance-ucx-netns", "cut"], beside="board-java"),
    Host("driver-build", "native", 10, "the module builds with -Werror against the kernel's headers"),
    Host("sparse", "native", 10, "sparse (make C=1) is clean", lane="side",
         needs=("env", "kernel", "driver", "tools")),
    Host("checkpatch", "native", 20, "checkpatch.pl --strict of the driver sources and headers is clean", lane="side"),
    Host("modinfo", "native", 1, "modinfo: name, documented parameters, PCI aliases (board, ivshmem)"),
    Host("tools-build", "native", 10, "user-space tools and tests build with -Werror"),
    Host("dkms", "native", 15, "dkms add/build of native/dkms.conf (private trees)", lane="side",
         needs=("env", "kernel", "driver", "tools")),
    Host("layout", "native", 10, "Java's and mcfab-create's soft-fabric files agree (mcctl's build)",
         snapshot=True,
         lane="side", needs=("env", "tools", "java_snapshot")),
    Host("guest-jvm-aot", "native", 30, "the AOT caches the guests' test JVMs start from "
         "(scripts/test-jvm-aot-cache; --no-java-aot leaves them out)", snapshot=True),
]

# the soft-fabric geometries of the layout cross-check: (bytes, page size, nodes)
LAYOUT_GEOMETRIES = [(16777216, 4096, 16), (67108864, 8192, 32), (4194304, 8192, 5), (1048576, 4096, 2)]

# ---------------------------------------------------------------------------------------------
# boots


@dataclass
class Guest:
    console: str          # console log name (also the boot's label for one-guest boots)
    test: str             # guest.sh's test name (mctest=)
    adapters: str = ""    # board boots: the co-simulated adapters of this guest ("0,1"); "" ivshmem


@dataclass
class Boot:
    name: str
    guests: list
    usual: int                          # seconds, a passing boot on an idle 2-core machine
    timeout: int = 300                  # QEMU's (or the launcher's) bound, seconds
    mem: int = 512                      # MB per guest
    smp: int = 1                        # vCPUs (board guests: always 1, see native.py)
    ivshmem: int = 1                    # ivshmem devices per guest, all on one fabric file
    fabric_nodes: Optional[int] = None  # mcfab-create -n (None: its default)
    board: bool = False                 # co-simulated RTL adapters (firmware/cosim/launch.py)
    launch: list = field(default_factory=list)   # launch.py options: cables, hub, fault knobs
    needs: tuple = ()                   # "java" snapshot, "console" JUnit launcher + AOT, "hub" model
    files: dict = field(default_factory=dict)    # work-dir files the guest reads: name -> option
    host_peer: Optional[str] = None     # a host process on the guest's fabric: "mc_cluster", "jvm"
    link: bool = False                  # two guests on one virtio-net link, no ivshmem (native.py linked)
    default: bool = True
    lane: str = "main"                  # "side": beside the main sequence (the side lane)
    doc: str = ""


# board-java's steps (native/tests/board_java.sh; step 1, the node IDs, always runs; "2", "2flips",
# "4", "cost" and "jvm" are opt-in). Rule 3 with link retry under bit flips runs once through the
# driver and the library, on the hub (board-hub-java: the whole suite under flips on 8 cables, the
# same adapter RTL); on a direct cable it runs in the firmware lane (link_errors, b2b); step 4 (the
# ordering and lock tests under flips on the two cabled adapters) repeats it. The selectors are
# those of the opt-in steps 2 and 2flips; board-hub-java's: the suite less the tests of what one
# node's processes share (the JUnit tag TestBackend.PROCESSES_OF_ONE_NODE: the driver's code common
# to every device, run on the conformance boot's 8 adapters; "" = the whole suite). Each is also a
# command-line option (conftest.py): --board-java-steps ...
BOARD_JAVA_STEPS = "1 3 5"
BOARD_JAVA_SELECT = "--select-package dev.memchan.conformance"
BOARD_HUB_SELECT = "--select-package dev.memchan.conformance --exclude-tag processes-of-one-node"
BOARD_HUB_TIMEOUT = 2400

BOOTS = [
    Boot("abi", [Guest("abi", "abi")], usual=30,
         doc="ABI tests on the kselftest harness, ioctl fuzz, unprivileged uid, udevadm, unbind with live "
             "mappings (SIGBUS), module unload and reload; then node 0's block was released"),
    Boot("cluster", [Guest("cluster-a", "cluster-a"), Guest("cluster-b", "cluster-b")], usual=30,
         doc="two guests sharing one ivshmem file form a 2-node cluster"),
    Boot("host", [Guest("host-guest", "cluster-a")], usual=20, host_peer="mc_cluster",
         doc="a host process (mc_cluster) on the same soft-fabric file talks to a guest"),
    Boot("java", [Guest("java", "java")], usual=290, timeout=900, mem=1024, smp=2, ivshmem=2,
         needs=("java",), doc="the Java library on the driver: smoke test, mcctl"),
    Boot("java-pair", [Guest("java-a", "java-a"), Guest("java-b", "java-b")], usual=20,
         timeout=400, mem=1024, needs=("java",),
         doc="a MessageChannel between JVMs in two guests"),
    Boot("host-java", [Guest("host-java", "java-a")], usual=20, mem=1024, needs=("java",),
         host_peer="jvm", doc="a host JVM on the soft fabric (file made by the Java library) talks "
                              "to a JVM in a guest"),
    Boot("conformance", [Guest("conformance", "conformance")], usual=280, timeout=2400, mem=2048,
         smp=2, ivshmem=8, fabric_nodes=8, needs=("java", "console"),
         doc="the Java conformance suite, unchanged, on 8 adapters of one guest (one 8-node fabric)"),
    Boot("detector", [Guest("detector", "detector")], usual=820, timeout=2400, mem=2048, smp=2, ivshmem=8,
         fabric_nodes=8, needs=("java", "console"), files={"detector.args": "detector_args"}, default=False,
         doc="the failure detector's figures on the driver: a 10-minute soak of 4 nodes x 2 processes with two "
             "CPU hogs in the guest (no false deaths), then 20 SIGKILLed nodes' detection times"),
    Boot("ucx-rdma", [Guest("rdma-a", "rdma-a"), Guest("rdma-b", "rdma-b")], usual=470, timeout=1500,
         mem=2048, link=True, needs=("java", "console"), default=False,
         doc="ucx:// on UCX's rc transport over soft-RoCE: two guests on one virtio-net link, an rxe device in "
             "each, UCX_TLS=rc_v; ucx_perftest put and fetch-add between them; the Region and notification "
             "conformance tests, each against a hub of its own in one guest, the notification's nodes in both; every "
             "UCX endpoint's data lanes on rc_verbs (native/tests/rdma_guest.sh, docs/ucx.md \"RDMA\")"),
    Boot("board-loop", [Guest("board-loop", "board-loop", "0")], usual=85, timeout=600,
         board=True, launch=["--cable", "0:0"], needs=("java",),
         doc="the RTL adapter as the PCI device, a loopback plug in its cage: hardware backend"),
    Boot("board-bad", [Guest("board-bad", "board-bad", "0,1")], usual=15, board=True,
         launch=["--bad-id", "0", "--bad-version", "1"], needs=("java",),
         doc="adapters with a wrong ID / VERSION major are refused"),
    Boot("board-java", [Guest("board-java", "board-java", "0,1")], usual=300, timeout=2400,
         mem=2048, board=True, launch=["--cable", "0:1"], needs=("java", "console"),
         files={"board-java.select": "board_java_select", "board-java.steps": "board_java_steps"},
         doc="two RTL adapters cabled: node IDs from the link, mcctl, rule 3 with link retry off "
             "(native/tests/board_java.sh)"),
    Boot("board-duo", [Guest("board-duo-a", "board-duo-a", "0"), Guest("board-duo-b", "board-duo-b", "1")],
         usual=40, timeout=900, mem=1024, board=True, launch=["--cable", "0:1"], needs=("java",),
         doc="two guests, one RTL adapter each: node IDs from the link, the demo, mcctl bench"),
    Boot("board-pair", [Guest("board-pair-a", "board-pair-a", "0"), Guest("board-pair-b", "board-pair-b", "1")],
         usual=30, timeout=600, board=True, launch=["--cable", "0:1"],
         doc="two guests, one RTL adapter each, cabled: mc_cluster across them"),
    Boot("board-hub", [Guest("board-hub", "board-hub", "0,1,2,3")], usual=300, timeout=900,
         mem=1024, board=True, launch=["--hub"], needs=("java", "console", "hub"), default=False,
         doc="four RTL adapters on the RTL hub: node IDs, broadcast, point to point, multicast, "
             "the global clock, the two quick 4-node conformance tests (native/tests/board_hub.sh)"),
    Boot("board-hub-java", [Guest("board-hub-java", "board-hub-java", "0,1,2,3")], usual=830,
         timeout=BOARD_HUB_TIMEOUT, mem=2048, board=True, launch=["--hub"],
         needs=("java", "console", "hub"), files={"board-hub.select": "board_hub_select"},
         doc="board-hub's checks, then the Java conformance suite on the hub's 4 nodes under bit "
             "flips on all 8 cables with link retry, mcctl status"),
]

# ---------------------------------------------------------------------------------------------
# firmware: jobs of steps. A job runs its steps in order; jobs run side by side in the firmware
# lane (--fw-jobs at once). Steps (firmware.py runs them, in firmware/, logs in firmware/build/):
#   Cmd(name, argv)                       a command must exit 0
#   Build(name, bench, top, files, ...)   verilator --binary of a bench (VFLAGS, rtl/files.f first)
#   Run(name, bench, top, plusargs)       the bench must exit 0 and print PASS
#   Seeds(Run(...))                       one Run per seed of --fw-seeds ("{seed}" in plusargs)
#   MustFail(name, bench, top, files, params, runs=[(plusargs, reason), ...]): a negative control:
#       built with -G params, each run must FAIL, with a line matching its reason (grep -E)
#   Synth(name, args)                     yosys synthesis (synth/synth.sh), resources and depth
#   Func(name, function)                  a check too odd for a row (firmware.py)
#   Show(globs, regex)                    prints matching lines of finished logs (no verdict)


@dataclass
class Cmd:
    name: str
    argv: list


@dataclass
class Build:
    name: str
    bench: str
    top: str
    files: list
    flags: Optional[list] = None   # None: VFLAGS with rtl/files.f; else exactly these options


@dataclass
class Run:
    name: str
    bench: str
    top: str
    plusargs: list = field(default_factory=list)


@dataclass
class Seeds:
    run: Run
    seeds: Optional[list] = None   # None: --fw-seeds


@dataclass
class MustFail:
    name: str
    bench: str
    top: str
    files: list
    params: list
    runs: list   # [(run log name, plusargs, reason regex)]


@dataclass
class Synth:
    name: str
    args: list


@dataclass
class Func:
    name: str
    func: str    # a function of firmware.py


@dataclass
class Show:
    globs: list
    regex: str
    first: Optional[int] = None


@dataclass
class FwJob:
    name: str
    usual: int       # CPU-bound seconds alone on a core, rough
    steps: list
    late: bool = False   # reported after the others (the syntheses, started first)
    doc: str = ""


RTL = ["-f", "rtl/files.f"]
# tb_pair's optional U50 shell link (tb_shell_link) brings the shell's link glue along
TBC = ["tb/common/tb_score_pkg.sv", "tb/common/tb_host_mem.sv", "tb/common/tb_link_chan.sv",
       "tb/common/tb_adapter.sv", "rtl/memchan_sync.sv", "rtl/memchan_async_fifo.sv",
       "rtl/memchan_nfc_rx_fifo.sv", "tb/common/tb_shell_link.sv"]
HUBC = ["-f", "rtl/hub_files.f"] + TBC + ["tb/common/tb_hub_net.sv"]
CLOCKC = HUBC + ["tb/common/tb_pair.sv", "tb/clock/tb_clock_mon.sv", "tb/clock/tb_clock.sv"]
CLOCKU = ["rtl/memchan_regs_pkg.sv", "rtl/memchan_pkt_pkg.sv", "rtl/memchan_clock_sync_tx.sv",
          "rtl/memchan_global_clock.sv"]
UNIT_FLAGS = ["--binary", "--timing", "-O1", "-Wno-fatal"]
LINT = ["verilator", "--lint-only", "-Wall", "lint/verilator.vlt"] + RTL
# the board shell's glue (firmware/boards/): benches on unrelated clocks in picoseconds, with the
# synchronizers' metastability model
GLUE_CDC = ["--timescale", "1ps/1ps", "+define+MEMCHAN_CDC_MODEL"]
GLUE_FLAGS = UNIT_FLAGS + GLUE_CDC
GLUE_ASYNC = ["rtl/memchan_sync.sv", "rtl/memchan_async_fifo.sv"]
GLUE_NFC = GLUE_ASYNC + ["rtl/memchan_nfc_rx_fifo.sv"]
GLUE_IRQ = ["rtl/memchan_sync.sv", "rtl/memchan_irq_bridge.sv"]
# two adapters on the shell's link: clocks in nanoseconds with picosecond steps, the CDC model's
# window 0.2 ns
SHELL_PAIR = (["--timescale", "1ns/1ps", "+define+MEMCHAN_CDC_MODEL", "+define+MEMCHAN_CDC_WINDOW=0.2"] + TBC
              + ["tb/common/tb_pair.sv", "tb/b2b/tb_b2b.sv"])

# the U50 board top with the vendor IP's behavioural models: boards/au50/sim/au50_models.py writes them
# into build/au50_sim, each under its stub's port list (docs/board-u50.md)
AU50_MODELS = "build/au50_sim/"
AU50_TOP = (["--timescale", "1ns/1ps", "+define+MEMCHAN_CDC_MODEL", "+define+MEMCHAN_CDC_WINDOW=0.2",
             "rtl/memchan_sync.sv", "rtl/memchan_async_fifo.sv", "rtl/memchan_nfc_rx_fifo.sv",
             "rtl/memchan_irq_bridge.sv", "rtl/memchan_irq_enable.sv", "rtl/memchan_bar2_rd_resp.sv"]
            + [AU50_MODELS + m + ".sv" for m in ("BUFG", "IBUFDS", "IBUFDS_GTE4", "DNA_PORTE2", "MMCME4_BASE",
                                                 "au50_bar0_clkconv", "au50_bar2_clkconv", "au50_dma_clkconv",
                                                 "au50_bar2_dwidth", "au50_dma_dwidth", "au50_xdma", "au50_aurora")]
            + ["boards/au50/sim/au50_sim_chan.sv", "boards/au50/rtl/au50_dna.sv", "boards/au50/rtl/au50_top.sv",
               "boards/au50/sim/tb_au50_clock.sv", "boards/au50/sim/tb_au50.sv"])

def pair_bench(name, *plusargs, usual=150):
    """two adapters cabled back to back (tb/common/tb_pair.sv): one build, every seed"""
    files = TBC + ["tb/common/tb_pair.sv", f"tb/{name}/tb_{name}.sv"]
    return FwJob(name, usual, [
        Build(f"{name}_build", name, f"tb_{name}", files),
        Seeds(Run(f"{name}_seed{{seed}}", name, f"tb_{name}", ["+seed={seed}", *plusargs])),
    ])



FIRMWARE = [
    # yosys is single-threaded and reads only the RTL: the two syntheses start first, the hub's
    # (the longer) before the adapter's, and are reported at the end
    # each synthesis fails when a path has more LUT levels than core_clk allows (synth/depth.py,
    # the clock from the U50 top's MMCM); its control: one level less must fail on the deepest
    FwJob("synth_hub", 200, [
        Synth("synth_hub", ["memchan_hub"]),
        Cmd("synth_hub_depth_control", ["synth/depth_control.sh", "build/synth_hub"]),
        Show(["synth_hub.log"], r"^depth (limit|within)"),
        Show(["synth_hub_depth_control.log"], r"^depth control"),
    ], late=True, doc="the hub's synthesis: no latches, no combinational loops, resources, depth within "
                      "the clock's limit (one level less must fail)"),
    FwJob("synth", 120, [
        Synth("synth", []),
        Cmd("synth_depth_control", ["synth/depth_control.sh", "build/synth"]),
        Show(["synth.log"], r"^depth (limit|within)"),
        Show(["synth_depth_control.log"], r"^depth control"),
    ], late=True, doc="the adapter's synthesis, its depth within the clock's limit (one level less must fail)"),
    FwJob("checks", 40, [
        Cmd("regmap_check", ["python3", "{root}/regmap/gen.py", "--check"]),
        Cmd("lint", LINT + ["--top-module", "memchan_top"]),
        Func("param_check", "param_check"),
        Cmd("hub_lint", LINT + ["-f", "rtl/hub_files.f", "--top-module", "memchan_hub"]),
        Func("hub_param_check", "hub_param_check"),
    ], doc="regmap, verilator lint, parameter checks (PAGE_SIZE=5000, PORTS=33, ACK_MERGE=0 refused)"),
    FwJob("units", 60, [
        Build("crc_build", "crc", "tb_crc", [], flags=UNIT_FLAGS + ["rtl/memchan_crc32.sv", "tb/crc/tb_crc.sv"]),
        Run("crc_verilator", "crc", "tb_crc"),
        Func("crc_iverilog", "crc_iverilog"),
        Build("fifo_build", "fifo", "tb_fifo", [], flags=UNIT_FLAGS + [
            "rtl/memchan_ram_sdp.sv", "rtl/memchan_fifo.sv", "tb/fifo/tb_fifo.sv"]),
        Run("fifo", "fifo", "tb_fifo"),
        Func("fifo_iverilog", "fifo_iverilog"),
        Build("skid_build", "skid", "tb_skid", [], flags=UNIT_FLAGS + ["rtl/memchan_skid.sv", "tb/skid/tb_skid.sv"]),
        Run("skid", "skid", "tb_skid"),
        Func("skid_iverilog", "skid_iverilog"),
    ], doc="small units (CRC, FIFO, skid buffer) in Verilator and Icarus"),
    FwJob("icarus", 30, [Func("icarus_rtl", "icarus_rtl"), Func("icarus_hub", "icarus_hub")],
          doc="the adapter and the hub elaborate under Icarus 11; their parameter checks fire"),
    FwJob("selftest", 120, [
        Build("selftest_build", "selftest", "tb_selftest", TBC + ["tb/selftest/tb_selftest.sv"]),
        Seeds(Run("selftest_seed{seed}", "selftest", "tb_selftest", ["+seed={seed}"])),
    ]),
    pair_bench("b2b", "+rounds=6"),
    pair_bench("link_errors"),
    pair_bench("features"),
    pair_bench("vhub", "+rounds=64"),
    FwJob("hub", 400, [
        Build("hub_build", "hub", "tb_hub", HUBC + ["tb/hub/tb_hub.sv"]),
        Seeds(Run("hub_seed{seed}", "hub", "tb_hub", ["+seed={seed}", "+rounds=12"])),
        Run("hub_backpressure", "hub", "tb_hub", ["+seed=7", "+rounds=12", "+bp=60"]),
        # 5000 ppm on every cable: frames, LNAKs and LACKs lost on both hops of every path
        Seeds(Run("hub_bitflips_seed{seed}", "hub", "tb_hub", ["+seed={seed}", "+rounds=12", "+flips=5000"]),
              seeds=[8, 9, 10]),
        Seeds(Run("hub8_seed{seed}", "hub", "tb_hub", ["+seed={seed}", "+rounds=12", "+nodes=8"]), seeds=[1, 2]),
        # port supervision: one node's cables cut in the middle of the traffic, then healed
        Seeds(Run("hub_cut_seed{seed}", "hub", "tb_hub", ["+seed={seed}", "+rounds=6", "+cut"]), seeds=[1, 2, 3]),
        Show(["hub8_seed*.log", "hub_cut_seed*.log"], r"^hub: PASS"),
    ], doc="4 (+nodes=8: 8) adapters on an 8-port hub: seeds, backpressure, bit flips, port cut"),
    FwJob("hub_controls", 150, [
        MustFail("hub_controls", "hub_controls", "tb_hub", HUBC + ["tb/hub/tb_hub.sv"],
                 ["-GNN=4", "-GSUPERVISION=0", "-GMCAST_FILTER=0"], [
                     # without port supervision a barrier waits forever on the cut node, or no
                     # node-down report
                     ("hub_nosup", ["+seed=1", "+rounds=6", "+cut", "+mcast=0"],
                      "timeout waiting for barrier DONE|down not reported"),
                     # multicast sent everywhere: a non-member's link sees it
                     ("hub_mcast_all", ["+seed=1", "+rounds=12"], "not a member"),
                 ]),
    ], doc="negative controls: SUPERVISION=0 fails the port cut, MCAST_FILTER=0 a non-member"),
    FwJob("hub_ack_forward", 120, [
        MustFail("hub_ack_forward", "hub_ack_forward", "tb_hub", HUBC + ["tb/hub/tb_hub.sv"],
                 ["-GNN=4", "-GACK_MERGE=0"],
                 [("hub_ack_forward", ["+seed=1", "+rounds=12"], "barrier DONE while node")]),
    ], doc="negative control: ACK_MERGE=0 (every receiver's ACK forwarded) fails the barrier check"),
    FwJob("hub_disc", 200, [
        Build("hub_disc_build", "hub_disc", "tb_hub_disc", HUBC + ["tb/hub_disc/tb_hub_disc.sv"]),
        Seeds(Run("hub_disc_seed{seed}", "hub_disc", "tb_hub_disc", ["+seed={seed}"])),
        Show(["hub_disc_seed*.log"], r"^hub_disc: PASS"),
    ], doc="a hub port whose link discards while the port stays up"),
    FwJob("hub_disc_silent", 120, [
        MustFail("hub_disc_silent", "hub_disc_silent", "tb_hub_disc", HUBC + ["tb/hub_disc/tb_hub_disc.sv"],
                 ["-GDISC_ANNOUNCE=0"],
                 [("hub_disc_silent", ["+seed=1", "+bar=0"], "local-copy frames reached node")]),
    ], doc="negative control: without the discard announcement the adapter's stores stall"),
    FwJob("hub_order", 200, [
        Build("hub_order_build", "hub_order", "tb_hub_order", HUBC + ["tb/hub_order/tb_hub_order.sv"]),
        Seeds(Run("hub_order_seed{seed}", "hub_order", "tb_hub_order", ["+seed={seed}", "+rounds=48"])),
    ], doc="rule 2 with 4 senders and 4 receivers (bid lock / IRIW)"),
    FwJob("hub_order_unsync", 120, [
        MustFail("hub_order_unsync", "hub_order_unsync", "tb_hub_order", HUBC + ["tb/hub_order/tb_hub_order.sv"],
                 ["-GSYNC=0"],
                 [("hub_order_unsync", ["+seed=1", "+rounds=48"], "rule 2 violated")]),
    ], doc="negative control: the hub's broadcast synchronization off violates rule 2"),
    FwJob("hub_perf", 150, [
        Build("hub_perf_build", "hub_perf", "tb_hub_perf", HUBC + ["tb/hub_perf/tb_hub_perf.sv"]),
        Run("hub_perf", "hub_perf", "tb_hub_perf"),
        Show(["hub_perf.run.log"], r"^PERF hub"),
    ], doc="8 adapters on the hub: bisection, broadcast against point to point"),
    FwJob("clock", 200, [
        Build("clock_build", "clock", "tb_clock", CLOCKC),
        Seeds(Run("clock_seed{seed}", "clock", "tb_clock", ["+seed={seed}"]), seeds=[1, 2, 3]),
        Show(["clock.run.log"], r"^CLOCK"),
    ], doc="the global clock: 4 adapters on a hub and 2 back to back, skew within the bound"),
    FwJob("clock_unsync", 120, [
        MustFail("clock_unsync", "clock_unsync", "tb_clock", CLOCKC, ["-GSYNC=0"],
                 [("clock_unsync", ["+seed=1"], "clock skew")]),
    ], doc="negative control: without sync frames the clocks drift apart"),
    FwJob("clock_unit", 40, [
        Build("clock_unit_build", "clock_unit", "tb_clock_unit", [],
              flags=UNIT_FLAGS + ["-Wno-WIDTH"] + CLOCKU + ["tb/clock_unit/tb_clock_unit.sv"]),
        Run("clock_unit", "clock_unit", "tb_clock_unit"),
        Func("clock_unit_iverilog", "clock_unit_icarus"),
        Func("clock_unit_unsync", "clock_unit_unsync"),
        Show(["clock_unit.run.log", "clock_unit_iverilog.run.log"], r"^CLOCK"),
    ], doc="the clock's two ends alone, both simulators; SYNC=0 must fail with clock skew in both"),
    FwJob("remote", 150, [
        Build("remote_build", "remote", "tb_remote", TBC + ["tb/common/tb_pair.sv", "tb/remote/tb_remote.sv"]),
        Seeds(Run("remote_seed{seed}", "remote", "tb_remote", ["+seed={seed}"])),
    ]),
    FwJob("perf", 100, [
        Build("perf_build", "perf", "tb_perf", TBC + ["tb/common/tb_pair.sv", "tb/perf/tb_perf.sv"]),
        Run("perf", "perf", "tb_perf"),
        Show(["perf.run.log"], r"^PERF"),
    ]),
    FwJob("board_glue", 60, [
        Build("async_fifo_build", "async_fifo", "tb_async_fifo", [],
              flags=GLUE_FLAGS + GLUE_ASYNC + ["tb/async_fifo/tb_async_fifo.sv"]),
        Run("async_fifo", "async_fifo", "tb_async_fifo"),
        Run("async_fifo_fast_writer", "async_fifo", "tb_async_fifo", ["+wr_ps=3000", "+rd_ps=7100"]),
        MustFail("async_fifo_binary", "async_fifo_binary", "tb_async_fifo",
                 GLUE_CDC + GLUE_ASYNC + ["tb/async_fifo/tb_async_fifo.sv"], ["-GGRAY=0"],
                 [("async_fifo_binary", [], "FAIL (free count|data mismatch|read)")]),
        Build("nfc_rx_fifo_build", "nfc_rx_fifo", "tb_nfc_rx_fifo", [],
              flags=GLUE_FLAGS + GLUE_NFC + ["tb/nfc_rx_fifo/tb_nfc_rx_fifo.sv"]),
        Seeds(Run("nfc_rx_fifo_seed{seed}", "nfc_rx_fifo", "tb_nfc_rx_fifo", ["+seed={seed}"]), seeds=[1, 2, 3]),
        MustFail("nfc_rx_fifo_short", "nfc_rx_fifo_short", "tb_nfc_rx_fifo",
                 GLUE_CDC + GLUE_NFC + ["tb/nfc_rx_fifo/tb_nfc_rx_fifo.sv"], ["-GHEADROOM_ADJ=-1"],
                 [("nfc_rx_fifo_short", [], "overflow, a received word was lost")]),
        Build("irq_bridge_build", "irq_bridge", "tb_irq_bridge", [],
              flags=GLUE_FLAGS + GLUE_IRQ + ["tb/irq_bridge/tb_irq_bridge.sv"]),
        Seeds(Run("irq_bridge_seed{seed}", "irq_bridge", "tb_irq_bridge", ["+seed={seed}"]), seeds=[1, 2, 3]),
        MustFail("irq_bridge_norearm", "irq_bridge_norearm", "tb_irq_bridge",
                 GLUE_CDC + GLUE_IRQ + ["tb/irq_bridge/tb_irq_bridge.sv"], ["-GREARM=0"],
                 [("irq_bridge_norearm", [], "not followed by a message")]),
        Build("irq_enable_build", "irq_enable", "tb_irq_enable",
              ["rtl/memchan_irq_enable.sv", "tb/irq_enable/tb_irq_enable.sv"]),
        Seeds(Run("irq_enable_seed{seed}", "irq_enable", "tb_irq_enable", ["+seed={seed}"]), seeds=[1, 2, 3]),
        MustFail("irq_enable_noretry", "irq_enable_noretry", "tb_irq_enable",
                 ["rtl/memchan_irq_enable.sv", "tb/irq_enable/tb_irq_enable.sv"], ["-GRETRY=0"],
                 [("irq_enable_noretry", [], "mask not set within")]),
        Build("bar2_rd_resp_build", "bar2_rd_resp", "tb_bar2_rd_resp",
              ["rtl/memchan_bar2_rd_resp.sv", "tb/bar2_rd_resp/tb_bar2_rd_resp.sv"]),
        Seeds(Run("bar2_rd_resp_seed{seed}", "bar2_rd_resp", "tb_bar2_rd_resp", ["+seed={seed}"]), seeds=[1, 2]),
        MustFail("bar2_rd_resp_none", "bar2_rd_resp_none", "tb_bar2_rd_resp",
                 ["rtl/memchan_bar2_rd_resp.sv", "tb/bar2_rd_resp/tb_bar2_rd_resp.sv"], ["-GRESPONDER=0"],
                 [("bar2_rd_resp_none", [], "completion timeout")]),
    ], doc="the board shell's glue: async FIFO (GRAY=0 must fail), NFC receive FIFO at the worst round trip "
           "(headroom one short must overflow), interrupt re-arm (REARM=0 must lose a cause), BAR2 read "
           "responder beside the adapter's writes (without it a read must time out), the bridge's interrupt "
           "enable mask set after every bridge reset (RETRY=0 must leave it clear after a refused write)"),
    # the b2b bench through the U50 shell's link on unrelated clocks (tb_pair SHELL): node 1's core
    # 137 ppm slow under a spread-spectrum sweep, the link clocks 100 ppm apart and jittered,
    # the receivers' host memories stalling so that the link must pause
    FwJob("b2b_shell", 60, [
        Build("b2b_shell_build", "b2b_shell", "tb_b2b", SHELL_PAIR + ["-GSHELL=1"]),
        Seeds(Run("b2b_shell_seed{seed}", "b2b_shell", "tb_b2b", ["+seed={seed}", "+rounds=4", "+host_stall=90"]),
              seeds=[1, 2, 3]),
        Show(["b2b_shell.run.log"], r"^b2b: shell links"),
        MustFail("b2b_shell_short", "b2b_shell_short", "tb_b2b", SHELL_PAIR,
                 ["-GSHELL=1", "-GSHELL_HEADROOM_ADJ=-24"],
                 [("b2b_shell_short", ["+seed=1", "+rounds=2", "+host_stall=90"], "overflow, a received word was lost")]),
    ], doc="two adapters through the U50 shell's link (async FIFOs, Aurora channel model with NFC and clock "
           "compensation, NFC receive FIFOs) on four unrelated clocks, scoreboard and clean-link counters; "
           "the receive FIFOs' headroom 24 words short must overflow"),
    FwJob("au50", 25, [Cmd("au50_check", ["make", "-C", "boards/au50", "check"])],
          doc="the U50 board without Vivado: lint of au50_top with the IP stubs, yosys elaboration (no latches, "
              "no loops), ports against the XDC, the Vivado scripts under a Tcl mock (IP settings against "
              "regmap/memchan.toml, flash layout); each with its negative controls"),
    # the whole U50 board top, twice, cabled: au50_top with the vendor IP as the behavioural models of
    # boards/au50/sim (XDMA bridge and host, Aurora 64B/66B, clock and width converters, MMCM, DNA
    # port) on each board's own drifting clocks; the negative controls are plusargs of the models
    FwJob("au50_top", 60, [
        Cmd("au50_top_models", ["python3", "boards/au50/sim/au50_models.py", AU50_MODELS]),
        Build("au50_top_build", "au50_top", "tb_au50", AU50_TOP),
        Seeds(Run("au50_top_seed{seed}", "au50_top", "tb_au50", ["+seed={seed}"]), seeds=[1, 2]),
        Show(["au50_top.run.log"], r"^tb_au50: (DNA|round|global clock|interrupts|links)"),
        MustFail("au50_top_controls", "au50_top", "tb_au50", AU50_TOP, [], [
            # the sender's Aurora ignores XOFF: the receiver's FIFO overflows
            ("au50_top_nfc_ignored", ["+seed=1", "+aurora_ignore_nfc"], "overflow, a received word was lost"),
            # the clock converters as plain wires between the clocks: a handshake is lost
            ("au50_top_plain_crossings", ["+seed=1", "+au50_plain_crossings"],
             "completion timeout|not acknowledged|expected .* got|unexpected host write|never arrived|words missing"),
        ]),
    ], doc="two U50 board tops cabled, the vendor IP as behavioural models (PG195 bridge and host, PG074 Aurora "
           "with NFC and clock compensation, PG059/PG247 converters, MMCM, DNA) on six unrelated drifting "
           "clocks: DNA as serial and node IDs, the interrupt enable mask, BAR2 stores scoreboarded into the "
           "far host's memory, NFC under host stalls, a BAR2 read, interrupts once per cause and re-armed, the "
           "global clock within its bound on a quiet link; "
           "NFC ignored must overflow, plain-wire crossings must lose a transfer"),
    FwJob("cosim_build", 60, [Cmd("cosim_build", ["cosim/build.sh"])],
          doc="the co-simulated board's device process builds from the same RTL and cable model"),
]

FW_SEEDS = "1 2 3 4 5 6"
FW_JOBS = 3
