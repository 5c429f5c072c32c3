# The AXI Clock Converters (PG059) between the bridge's axi_aclk and the core's own clock, on
# the core's side of the width converters (64 bits: the smaller crossing), asynchronous clocks:
# BAR0 (AXI4-Lite), BAR2's writes, host memory. The IP carries its own constraints for its
# gray-coded FIFOs.
create_ip -name axi_clock_converter -vendor xilinx.com -library ip -module_name au50_bar0_clkconv -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4LITE} \
  CONFIG.ADDR_WIDTH {32} \
  CONFIG.DATA_WIDTH {32} \
  CONFIG.ACLK_ASYNC {1} \
  CONFIG.SYNCHRONIZATION_STAGES {3} \
] [get_ips au50_bar0_clkconv]

create_ip -name axi_clock_converter -vendor xilinx.com -library ip -module_name au50_bar2_clkconv -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.READ_WRITE_MODE {WRITE_ONLY} \
  CONFIG.ADDR_WIDTH {64} \
  CONFIG.DATA_WIDTH {64} \
  CONFIG.ID_WIDTH {0} \
  CONFIG.ACLK_ASYNC {1} \
  CONFIG.SYNCHRONIZATION_STAGES {3} \
] [get_ips au50_bar2_clkconv]

create_ip -name axi_clock_converter -vendor xilinx.com -library ip -module_name au50_dma_clkconv -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.READ_WRITE_MODE {READ_WRITE} \
  CONFIG.ADDR_WIDTH {64} \
  CONFIG.DATA_WIDTH {64} \
  CONFIG.ID_WIDTH {0} \
  CONFIG.ACLK_ASYNC {1} \
  CONFIG.SYNCHRONIZATION_STAGES {3} \
] [get_ips au50_dma_clkconv]
