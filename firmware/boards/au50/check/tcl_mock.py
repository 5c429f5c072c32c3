#!/usr/bin/env python3
"""Runs the board's Vivado scripts under check/vivado_mock.tcl (tclsh) and checks the IP settings
against the values this script computes from regmap/memchan.toml on its own (PCI IDs, BAR sizes,
the transmit window's place and size), and the flash image's layout.

    tcl_mock.py              build.tcl, program.tcl and flash.tcl under the mock: must pass
    tcl_mock.py --controls   the negative controls: each planted fault must fail the mock run
"""
import subprocess
import sys
import tempfile
from pathlib import Path

BOARD = Path(__file__).resolve().parent.parent
ROOT = BOARD.parent.parent.parent
sys.path.insert(0, str(ROOT))
from regmap.model import load  # noqa: E402

MOCK = BOARD / "check" / "vivado_mock.tcl"
TCL = BOARD / "tcl"


def bar_size(nbytes):
    """a BAR size as the bridge IP takes it: (number, scale)"""
    for scale, unit in (("Gigabytes", 1 << 30), ("Megabytes", 1 << 20), ("Kilobytes", 1 << 10)):
        if nbytes >= unit and nbytes % unit == 0:
            return nbytes // unit, scale
    raise SystemExit(f"BAR size {nbytes} is not a whole number of kilobytes")


def expectations():
    rm = load()
    meta, board = rm["meta"], rm["board"]
    bar0 = bar_size(meta["bar0_size"])
    bar2 = bar_size(board["pages"] * board["page_size"])
    xdma = {
        "CONFIG.functional_mode": "AXI_Bridge",
        "CONFIG.vendor_id": f"{meta['pci_vendor']:04X}",
        "CONFIG.pf0_device_id": f"{meta['pci_device']:04X}",
        "CONFIG.axilite_master_en": "true",
        "CONFIG.axilite_master_size": str(bar0[0]),
        "CONFIG.axilite_master_scale": bar0[1],
        "CONFIG.pciebar2axibar_axil_master": "0x0",
        "CONFIG.pf0_bar2_enabled": "true",
        "CONFIG.pf0_bar2_size": str(bar2[0]),
        "CONFIG.pf0_bar2_scale": bar2[1],
        "CONFIG.pf0_bar2_64bit": "true",
        "CONFIG.pf0_bar2_prefetchable": "true",
        "CONFIG.pciebar2axibar_2": "0x0",    # the window at AXI address 0: au50_top slices it
        "CONFIG.axi_data_width": "512_bit",
        "CONFIG.xdma_num_usr_irq": "1",
        "CONFIG.xdma_axilite_slave": "true",   # memchan_irq_enable's way to the interrupt mask
        "CONFIG.pf0_msix_enabled": "true",
    }
    aurora = {
        "CONFIG.C_LINE_RATE": "10.3125",
        "CONFIG.C_REFCLK_FREQUENCY": "161.1328125",
        "CONFIG.C_AURORA_LANES": "1",
        "CONFIG.interface_mode": "Framing",
        "CONFIG.flow_mode": "Immediate_NFC",
    }
    bar2_dw = {"CONFIG.SI_DATA_WIDTH": "512", "CONFIG.MI_DATA_WIDTH": "64", "CONFIG.READ_WRITE_MODE": "WRITE_ONLY"}
    dma_dw = {"CONFIG.SI_DATA_WIDTH": "64", "CONFIG.MI_DATA_WIDTH": "512", "CONFIG.READ_WRITE_MODE": "READ_WRITE"}
    # the clock converters: asynchronous (the core's clock is not the bridge's), widths of the core's ports
    bar0_cc = {"CONFIG.PROTOCOL": "AXI4LITE", "CONFIG.ACLK_ASYNC": "1", "CONFIG.DATA_WIDTH": "32"}
    bar2_cc = {"CONFIG.PROTOCOL": "AXI4", "CONFIG.ACLK_ASYNC": "1", "CONFIG.DATA_WIDTH": "64",
               "CONFIG.READ_WRITE_MODE": "WRITE_ONLY"}
    dma_cc = {"CONFIG.PROTOCOL": "AXI4", "CONFIG.ACLK_ASYNC": "1", "CONFIG.DATA_WIDTH": "64",
              "CONFIG.READ_WRITE_MODE": "READ_WRITE"}
    ips = {"au50_xdma": xdma, "au50_aurora": aurora, "au50_bar2_dwidth": bar2_dw, "au50_dma_dwidth": dma_dw,
           "au50_bar0_clkconv": bar0_cc, "au50_bar2_clkconv": bar2_cc, "au50_dma_clkconv": dma_cc}
    cfgmem = {"-format": "mcs", "-size": "128", "-interface": "SPIx4", "-loadbit": "up 0x01002000"}
    return ips, cfgmem


def tcl_dict(d):
    return "{" + " ".join(f"{k} {{{v}}}" for k, v in d.items()) + "}"


def write_expect(path):
    ips, cfgmem = expectations()
    path.write_text("set expect_ip {\n" + "".join(f"  {ip} {tcl_dict(kv)}\n" for ip, kv in ips.items())
                    + "}\nset expect_cfgmem " + tcl_dict(cfgmem) + "\n")


def run(expect, script, args=(), replace=()):
    argv = ["tclsh", str(MOCK), str(expect)]
    for name, path in replace:
        argv += ["-replace", name, str(path)]
    argv += [str(TCL / script), *map(str, args)]
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


# the negative controls: (what, file, text replaced, replacement, the failure it must produce)
CONTROLS = [
    ("a device ID typed by hand", "ip_xdma.tcl", "CONFIG.pf0_device_id $memchan_pci_device",
     "CONFIG.pf0_device_id {9038}", "au50_xdma CONFIG.pf0_device_id is 9038, expected 4D43"),
    ("a BAR2 size typed by hand", "ip_xdma.tcl", "CONFIG.pf0_bar2_size $bar2_size", "CONFIG.pf0_bar2_size {8}",
     "au50_xdma CONFIG.pf0_bar2_size is 8"),
    ("stale generated IDs", "memchan_ids.tcl", "set memchan_pci_device 4D43", "set memchan_pci_device 4D44",
     "CONFIG.pf0_device_id is 4D44, expected 4D43"),
    ("clock converters left synchronous", "ip_clkconv.tcl", "CONFIG.ACLK_ASYNC {1}", "CONFIG.ACLK_ASYNC {0}",
     "clkconv CONFIG.ACLK_ASYNC is 0, expected 1"),
    ("an unknown command", "build.tcl", "synth_design -top", "synth_desing -top", "unknown command: synth_desing"),
    ("a constraint command Vivado lacks", "timing.xdc", "set_false_path -to [get_ports {led[*]}]",
     "set_falsepath -to [get_ports {led[*]}]", "unknown constraint command: set_falsepath"),
    ("the user image over the golden one", "settings.tcl", "set flash_user_offset 0x01002000",
     "set flash_user_offset 0x00000000", "write_cfgmem -loadbit is up 0x00000000"),
]


def main(argv):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        expect = tmp / "expect.tcl"
        write_expect(expect)
        nothing = tmp / "expect_nothing.tcl"     # program and flash configure no IP
        nothing.write_text("")
        image = tmp / "au50_top.bit"
        image.write_text("")
        mcs = tmp / "au50_top.mcs"
        mcs.write_text("")
        if argv[1:] != ["--controls"]:
            failed = 0
            for script, exp, args in (("build.tcl", expect, ["bitstream"]), ("program.tcl", nothing, [image]),
                                      ("flash.tcl", nothing, [mcs])):
                rc, out = run(exp, script, args)
                print(out)
                failed += rc != 0
            return 1 if failed else 0
        failed = 0
        for what, name, old, new, reason in CONTROLS:
            src = (BOARD / ("xdc" if name.endswith(".xdc") else "tcl") / name).read_text()
            if old not in src:
                print(f"tcl mock control: {what}: {old!r} not in {name} (the script moved): fix the control")
                failed += 1
                continue
            planted = tmp / name
            planted.write_text(src.replace(old, new))
            rc, out = run(expect, "build.tcl", ["bitstream"], [(name, planted)])
            if rc == 0:
                print(f"tcl mock control: {what}: the mock run passed: the check proves nothing")
                failed += 1
            elif reason not in out:
                print(f"tcl mock control: {what}: failed, but not with {reason!r}: {out}")
                failed += 1
            else:
                print(f"tcl mock control: {what}: fails ({reason})")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
