"""Negative controls of the hand-layout scans (python3 -m unittest regmap.tests.test_lint): a copy
of the files a scan reads passes it, and the same copy with one offset, width, page geometry or
register field width written by hand fails it, naming the file."""
import shutil
import tempfile
import unittest
from pathlib import Path

from regmap import lint
from regmap.model import ROOT, load


class ScanControls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rm = load()
        cls.root = Path(tempfile.mkdtemp(prefix="regmap-scan-"))
        for f in [f for f, _ in lint.firmware_files(ROOT)] + list(lint.layout_files(ROOT)):
            dst = cls.root / f.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def plant(self, rel, line):
        """line appended to the copy of rel for this test only"""
        path = self.root / rel
        original = path.read_text()
        self.addCleanup(path.write_text, original)
        path.write_text(original + line + "\n")

    def assertCaught(self, hits, rel, text):
        self.assertTrue(any(h.startswith(rel + ":") and text in h for h in hits),
                        f"{text!r} planted in {rel} not flagged; the scan found: {hits}")

    def test_copies_pass(self):
        self.assertEqual(lint.hand_geometry_hits(self.rm, self.root), [])
        self.assertEqual(lint.hand_layout_hits(self.root), [])
        self.assertEqual(lint.hand_width_hits(self.root), [])

    # (file, planted line, what the hit must show)
    GEOMETRY_PLANTS = [
        ("firmware/rtl/memchan_top.sv", "  localparam logic [31:0] CTRL_OFFSET = 32'h024;", "32'h024"),
        ("firmware/tb/common/tb_adapter.sv", "  logic [17:0] planted_addr;", "[17:0]"),
        ("firmware/cosim/cosim_top.sv", "  localparam int unsigned PAGE_SIZE = 8192;", "8192"),
        ("firmware/cosim/build.sh", "retry_limit_reg=0x0C8", "0x0C8"),
        ("firmware/cosim/build.sh", "pages=2048", "pages=2048"),
    ]

    def assertEachCaught(self, plants, scan):
        """each (file, line, shown) of plants, planted alone, is a hit of scan() naming the file"""
        for rel, line, shown in plants:
            with self.subTest(file=rel, line=line):
                self.plant(rel, line)
                self.assertCaught(scan(), rel, shown)
                self.doCleanups()

    def test_geometry_typed_by_hand(self):
        self.assertEachCaught(self.GEOMETRY_PLANTS, lambda: lint.hand_geometry_hits(self.rm, self.root))

    # a register field's width or count typed by hand where the RTL carries it between modules
    WIDTH_PLANTS = [
        ("firmware/rtl/memchan_top.sv", "  logic [15:0]  combine_idle;", "[15:0]"),
        ("firmware/rtl/memchan_top.sv", "    for (int g = 0; g < 16; g++) mcast_groups[g] = mcast[{4'(g), node_id[4:0]}];", "g < 16"),
        ("firmware/rtl/memchan_top.sv", "  assign planted = cas_page[13:0];", "cas_page[13:0]"),
        ("firmware/rtl/memchan_top.sv", "  assign planted = node_valid && (node_id == 8'd1);", "8'd1"),
        ("firmware/rtl/memchan_axil_regs.sv", "  output logic [7:0] node_id_o,", "[7:0] node_id_o"),
        ("firmware/rtl/memchan_link_ctrl.sv", "  input  wire logic [31:0] hb_period_i,", "hb_period_i"),
        ("firmware/rtl/memchan_link_rx.sv", "  input  wire logic [511:0]  mcast_i,", "[511:0]"),
        ("firmware/rtl/memchan_global_clock.sv", "  assign planted = link_delay_i[31:16];", "link_delay_i[31:16]"),
    ]

    def test_register_width_typed_by_hand(self):
        self.assertEachCaught(self.WIDTH_PLANTS, lambda: lint.hand_width_hits(self.root))

    def test_field_shift_in_driver(self):
        self.plant("native/memchan_main.c", "static unsigned int planted(unsigned int v) { return v >> 16; }")
        self.assertCaught(lint.hand_layout_hits(self.root), "native/memchan_main.c", ">> 16")


if __name__ == "__main__":
    unittest.main()
