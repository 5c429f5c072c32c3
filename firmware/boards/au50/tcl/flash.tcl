# Write the flash image (build/au50_top.mcs: the user image at flash_user_offset, above the
# factory golden image, which stays) into the U50's configuration flash over JTAG:
#   vivado -mode batch -source tcl/flash.tcl [-tclargs FILE.mcs]
# The card boots the user image at the next power cycle and falls back to the golden image when
# the user image fails to configure (BITSTREAM.CONFIG.CONFIGFALLBACK, xdc/config.xdc).
source [file join [file dirname [info script]] settings.tcl]

set mcs [memchan_input_file [file join $build_dir $top.mcs] "flash image"]
set device [memchan_open_u50]
set cfgmem [create_hw_cfgmem -hw_device $device [lindex [get_cfgmem_parts $flash_part] 0]]
set_property PROGRAM.FILES [list $mcs] $cfgmem
set_property PROGRAM.ADDRESS_RANGE {use_file} $cfgmem
set_property PROGRAM.BLANK_CHECK 0 $cfgmem
set_property PROGRAM.ERASE 1 $cfgmem
set_property PROGRAM.CFG_PROGRAM 1 $cfgmem
set_property PROGRAM.VERIFY 1 $cfgmem
create_hw_bitstream -hw_device $device [get_property PROGRAM.HW_CFGMEM_BITFILE $device]
program_hw_devices $device
program_hw_cfgmem -hw_cfgmem $cfgmem
puts "memchan: $mcs written to the flash of $device; power-cycle the host to boot it"
close_hw_manager
