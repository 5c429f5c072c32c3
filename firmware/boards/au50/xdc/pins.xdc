# Alveo U50 (xcu50-fsvh2104-2-e) pins of au50_top, from the public U50 constraint files
# (../shared/notes/board-u50.md). check/check_xdc.py checks every port of au50_top against this
# file and timing.xdc: pinned, I/O standard set, clocks created, no pin twice.
#
# Transceiver pins carry no I/O standard. The PCIe lanes are placed by the bridge IP (its GT
# quads follow from CONFIG.pcie_blk_locn and the board interface in tcl/ip_xdma.tcl); a
# differential pair's N pin follows its P pin.
# check: gt pcie_refclk_p pcie_refclk_n pcie_rx_p pcie_rx_n pcie_tx_p pcie_tx_n qsfp_refclk_p qsfp_refclk_n qsfp_rx_p qsfp_rx_n qsfp_tx_p qsfp_tx_n
# check: ip-placed pcie_rx_p pcie_rx_n pcie_tx_p pcie_tx_n

# PCIe reference clock (100 MHz from the host) and PERST#
set_property PACKAGE_PIN AF9 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AF8 [get_ports pcie_refclk_n]
set_property PACKAGE_PIN AW27 [get_ports pcie_perst_n]
set_property IOSTANDARD LVCMOS18 [get_ports pcie_perst_n]
set_property PULLUP true [get_ports pcie_perst_n]

# QSFP28 cage: its reference clock (161.1328125 MHz, Si5394) and lane 0
set_property PACKAGE_PIN N36 [get_ports qsfp_refclk_p]
set_property PACKAGE_PIN N37 [get_ports qsfp_refclk_n]
set_property PACKAGE_PIN J45 [get_ports qsfp_rx_p]
set_property PACKAGE_PIN D42 [get_ports qsfp_tx_p]

# 100 MHz system clock
set_property PACKAGE_PIN G17 [get_ports sys_clk_p]
set_property PACKAGE_PIN G16 [get_ports sys_clk_n]
set_property IOSTANDARD LVDS [get_ports {sys_clk_p sys_clk_n}]

# HBM catastrophic-temperature line: driven low, HBM unused
set_property PACKAGE_PIN J18 [get_ports hbm_cattrip]
set_property IOSTANDARD LVCMOS18 [get_ports hbm_cattrip]
set_property PULLDOWN true [get_ports hbm_cattrip]

# LEDs
set_property PACKAGE_PIN E18 [get_ports {led[0]}]
set_property PACKAGE_PIN E16 [get_ports {led[1]}]
set_property PACKAGE_PIN F17 [get_ports {led[2]}]
set_property IOSTANDARD LVCMOS18 [get_ports {led[*]}]
