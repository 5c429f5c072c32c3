# au50_xdma: DMA/Bridge Subsystem for PCI Express (PG195) in AXI Bridge mode. Gen3 x16, 512-bit
# AXI at 250 MHz; BAR0 through the AXI-Lite master (the registers and PCTs), BAR2 through the
# AXI4 master (the transmit window at AXI address 0, 64-bit and prefetchable for write
# combining); the AXI4 slave toward host memory; one user interrupt as MSI-X, its table in BAR4;
# the AXI4-Lite slave to the IP's own registers, through which memchan_irq_enable sets the user
# interrupt enable mask.
# The IDs and BAR sizes come from memchan_ids.tcl (generated from regmap/memchan.toml).

# a BAR size in bytes as the IP takes it: a number and a scale
proc memchan_bar_size {bytes} {
  foreach {scale unit} {Gigabytes 1073741824 Megabytes 1048576 Kilobytes 1024} {
    if {$bytes >= $unit && $bytes % $unit == 0} { return [list [expr {$bytes / $unit}] $scale] }
  }
  error "BAR size $bytes is not a whole number of kilobytes"
}
lassign [memchan_bar_size $memchan_bar0_bytes] bar0_size bar0_scale
lassign [memchan_bar_size $memchan_bar2_bytes] bar2_size bar2_scale

create_ip -name xdma -vendor xilinx.com -library ip -module_name au50_xdma -dir $ip_dir
set_property -dict [list \
  CONFIG.functional_mode {AXI_Bridge} \
  CONFIG.mode_selection {Advanced} \
  CONFIG.PCIE_BOARD_INTERFACE {pci_express_x16} \
  CONFIG.SYS_RST_N_BOARD_INTERFACE {pcie_perstn} \
  CONFIG.pl_link_cap_max_link_width {X16} \
  CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
  CONFIG.axi_data_width {512_bit} \
  CONFIG.axisten_freq {250} \
  CONFIG.axi_addr_width {64} \
  CONFIG.vendor_id $memchan_pci_vendor \
  CONFIG.pf0_device_id $memchan_pci_device \
  CONFIG.pf0_subsystem_vendor_id $memchan_pci_vendor \
  CONFIG.pf0_subsystem_id $memchan_pci_device \
  CONFIG.pf0_base_class_menu {Network_controller} \
  CONFIG.axilite_master_en {true} \
  CONFIG.axilite_master_size $bar0_size \
  CONFIG.axilite_master_scale $bar0_scale \
  CONFIG.pciebar2axibar_axil_master {0x0000000000000000} \
  CONFIG.pf0_bar2_enabled {true} \
  CONFIG.pf0_bar2_64bit {true} \
  CONFIG.pf0_bar2_prefetchable {true} \
  CONFIG.pf0_bar2_size $bar2_size \
  CONFIG.pf0_bar2_scale $bar2_scale \
  CONFIG.pciebar2axibar_2 {0x0000000000000000} \
  CONFIG.en_axi_slave_if {true} \
  CONFIG.axibar_num {1} \
  CONFIG.axibar2pciebar_0 {0x0000000000000000} \
  CONFIG.xdma_num_usr_irq {1} \
  CONFIG.xdma_axilite_slave {true} \
  CONFIG.pf0_msi_enabled {false} \
  CONFIG.pf0_msix_enabled {true} \
  CONFIG.pf0_msix_impl_locn {Internal} \
  CONFIG.pf0_msix_cap_table_bir {BAR_5:4} \
  CONFIG.pf0_msix_cap_pba_bir {BAR_5:4} \
] [get_ips au50_xdma]
