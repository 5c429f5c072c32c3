# Clocks of au50_top and its crossings.
#   pcie_refclk  100 MHz from the host (may be spread-spectrum); the bridge derives axi_aclk
#                (250 MHz) from it: the adapter's clock
#   qsfp_refclk  161.1328125 MHz; Aurora derives user_clk (10.3125 Gb/s / 66 bits: 156.25 MHz)
#   sys_clk      100 MHz: Aurora's init clock, the DNA read, the power-on reset
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
create_clock -period 6.206 -name qsfp_refclk [get_ports qsfp_refclk_p]
create_clock -period 10.000 -name sys_clk [get_ports sys_clk_p]

# The system clock's domain meets the others only through memchan_sync (the DNA's done level and
# its value, which holds still by then, and Aurora's reset inputs, which the IP synchronizes)
set_clock_groups -asynchronous \
  -group [get_clocks -include_generated_clocks sys_clk] \
  -group [get_clocks -include_generated_clocks pcie_refclk] \
  -group [get_clocks -include_generated_clocks qsfp_refclk]

# Between axi_aclk and user_clk every path ends in a memchan_sync's first flop. The gray-coded
# pointers need their bits to arrive within one destination period of each other (4.0 ns, the
# faster clock), so those paths get a data-path-only bound and a bus-skew bound instead of a
# blanket false path: set_max_delay -datapath_only overrides the clock groups above for them.
set_max_delay -datapath_only -from [get_clocks -of_objects [get_pins u_xdma/axi_aclk]] \
  -to [get_cells -hierarchical -filter {NAME =~ u_link_*/*u_*ptr_sync/sync_q_reg[0]*}] 4.000
set_max_delay -datapath_only -from [get_clocks -of_objects [get_pins u_aurora/user_clk_out]] \
  -to [get_cells -hierarchical -filter {NAME =~ u_link_*/*u_*ptr_sync/sync_q_reg[0]*}] 4.000
set_bus_skew -from [get_cells -hierarchical -filter {NAME =~ u_link_*/*wgray_q_reg*}] \
  -to [get_cells -hierarchical -filter {NAME =~ u_link_*/*u_wptr_sync/sync_q_reg[0]*}] 4.000
set_bus_skew -from [get_cells -hierarchical -filter {NAME =~ u_link_*/*rgray_q_reg*}] \
  -to [get_cells -hierarchical -filter {NAME =~ u_link_*/*u_rptr_sync/sync_q_reg[0]*}] 4.000

# The LEDs are read by eyes
set_false_path -to [get_ports {led[*]}]
set_false_path -to [get_ports hbm_cattrip]
set_false_path -from [get_ports pcie_perst_n]
