# The AXI Data Width Converters (PG247) between the bridge's 512-bit AXI and the adapter's
# 64-bit ports, on axi_aclk: BAR2's writes down to 64 bits (its reads are answered at 512 bits
# by memchan_bar2_rd_resp), host memory up to 512 bits.
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name au50_bar2_dwidth -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.READ_WRITE_MODE {WRITE_ONLY} \
  CONFIG.ADDR_WIDTH {64} \
  CONFIG.SI_DATA_WIDTH {512} \
  CONFIG.MI_DATA_WIDTH {64} \
  CONFIG.SI_ID_WIDTH {4} \
] [get_ips au50_bar2_dwidth]

create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name au50_dma_dwidth -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.READ_WRITE_MODE {READ_WRITE} \
  CONFIG.ADDR_WIDTH {64} \
  CONFIG.SI_DATA_WIDTH {64} \
  CONFIG.MI_DATA_WIDTH {512} \
  CONFIG.SI_ID_WIDTH {0} \
] [get_ips au50_dma_dwidth]
