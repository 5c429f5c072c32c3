# The board's build settings: part, board part, top, sources (paths from firmware/boards/au50),
# IP scripts, constraints. Every other script of tcl/ sources this one.
set board_dir   [file normalize [file join [file dirname [info script]] ..]]
set fw_dir      [file normalize [file join $board_dir .. ..]]
set build_dir   [file join $board_dir build]
set ip_dir      [file join $build_dir ip]
set part        xcu50-fsvh2104-2-e
set board_part  xilinx.com:au50:part0:1.3
set top         au50_top
# the user image's address in the configuration flash, above the factory golden image
set flash_user_offset 0x01002000
set flash_part  mt25qu01g-spi-x1_x2_x4

source [file join $board_dir tcl memchan_ids.tcl]

# the adapter (rtl/files.f, in its order), the shell's glue, the board's own modules
proc memchan_sources {} {
  global fw_dir board_dir
  set files {}
  set f [open [file join $fw_dir rtl files.f]]
  foreach line [split [read $f] "\n"] {
    if {[string trim $line] ne ""} { lappend files [file join $fw_dir [string trim $line]] }
  }
  close $f
  foreach glue {memchan_sync memchan_async_fifo memchan_nfc_rx_fifo memchan_irq_bridge memchan_irq_enable memchan_bar2_rd_resp} {
    lappend files [file join $fw_dir rtl $glue.sv]
  }
  foreach m {au50_dna au50_top} {
    lappend files [file join $board_dir rtl $m.sv]
  }
  return $files
}

# the file the command line names, else the build's default; it must exist
proc memchan_input_file {default what} {
  global argv
  set path [expr {[llength $argv] > 0 ? [lindex $argv 0] : $default}]
  if {![file exists $path]} { error "no $what $path: make bitstream first" }
  return $path
}

# the U50 on the JTAG chain (AMD's programming cable on the maintenance connector), current
proc memchan_open_u50 {} {
  open_hw_manager
  connect_hw_server
  open_hw_target
  set device [lindex [get_hw_devices xcu50_*] 0]
  if {$device eq ""} { error "no U50 (xcu50) on the JTAG chain" }
  current_hw_device $device
  return $device
}

set ip_scripts  {ip_xdma.tcl ip_aurora.tcl ip_dwidth.tcl ip_clkconv.tcl}
set xdc_files   {pins.xdc timing.xdc config.xdc}
