# Volatile load of the bitstream over JTAG (AMD's programming cable on the maintenance
# connector): vivado -mode batch -source tcl/program.tcl [-tclargs FILE.bit]
# The host then needs the device removed and its bridge rescanned, or a warm reboot
# (docs/board-u50.md).
source [file join [file dirname [info script]] settings.tcl]

set bit [memchan_input_file [file join $build_dir $top.bit] "bitstream"]
set device [memchan_open_u50]
set_property PROGRAM.FILE $bit $device
program_hw_devices $device
refresh_hw_device $device
puts "memchan: $bit loaded into $device (volatile: lost at power-off)"
close_hw_manager
