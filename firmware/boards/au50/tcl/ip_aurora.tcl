# au50_aurora: Aurora 64B/66B (PG074), one lane of the QSFP28 cage at 10.3125 Gb/s from its
# 161.1328125 MHz reference (user clock 156.25 MHz), framing with TKEEP, immediate native flow
# control (the receive side has no TREADY: memchan_nfc_rx_fifo sends XOFF/XON), the shared
# logic in the core, a 100 MHz init clock. The lane's location (quad, channel, reference clock
# input) is the QSFP cage's as the public U50 shells place it; Vivado's board file is the
# authority and the first build checks it (docs/board-u50.md).
create_ip -name aurora_64b66b -vendor xilinx.com -library ip -module_name au50_aurora -dir $ip_dir
set_property -dict [list \
  CONFIG.C_AURORA_LANES {1} \
  CONFIG.C_LINE_RATE {10.3125} \
  CONFIG.C_REFCLK_FREQUENCY {161.1328125} \
  CONFIG.C_INIT_CLK {100} \
  CONFIG.interface_mode {Framing} \
  CONFIG.flow_mode {Immediate_NFC} \
  CONFIG.SupportLevel {1} \
  CONFIG.CHANNEL_ENABLE {X0Y4} \
  CONFIG.C_START_QUAD {Quad_X0Y1} \
  CONFIG.C_START_LANE {X0Y4} \
  CONFIG.C_REFCLK_SOURCE {MGTREFCLK0_of_Quad_X0Y1} \
] [get_ips au50_aurora]
