# Vivado batch build of the U50 bitstream and its flash image, non-project mode:
#   vivado -mode batch -source tcl/build.tcl -tclargs bitstream
# Steps: the IP (generated, synthesized out of context), synthesis of au50_top, implementation,
# timing check (the build fails when timing is not met), bitstream, and the flash image (MCS)
# with the user image above the golden image. Output in build/.
source [file join [file dirname [info script]] settings.tcl]

file mkdir $build_dir $ip_dir
create_project -in_memory -part $part
set_property board_part $board_part [current_project]
set_property target_language Verilog [current_project]

foreach script $ip_scripts { source [file join $board_dir tcl $script] }
foreach ip [get_ips] {
  generate_target all $ip
  synth_ip $ip
}

read_verilog -sv [memchan_sources]
foreach xdc $xdc_files { read_xdc [file join $board_dir xdc $xdc] }

# the build's stamp (registers BUILD_GIT, BUILD_TIME): the commit's first 8 hex digits and now
set build_git [string range [exec git -C $fw_dir rev-parse HEAD] 0 7]
set build_time [clock seconds]
synth_design -top $top -part $part -generic "BUILD_GIT=32'h$build_git" -generic "BUILD_TIME=$build_time"
write_checkpoint -force [file join $build_dir post_synth.dcp]
report_utilization -file [file join $build_dir utilization_synth.rpt]

opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $build_dir post_route.dcp]
report_utilization -file [file join $build_dir utilization.rpt]
report_timing_summary -max_paths 20 -file [file join $build_dir timing_summary.rpt]
report_clock_interaction -file [file join $build_dir clock_interaction.rpt]
report_cdc -file [file join $build_dir cdc.rpt]

set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
if {$wns < 0 || $whs < 0} {
  error "timing not met: WNS $wns ns, WHS $whs ns (build/timing_summary.rpt)"
}

set bit [file join $build_dir $top.bit]
write_bitstream -force $bit
write_cfgmem -force -format mcs -size 128 -interface SPIx4 \
  -loadbit "up $flash_user_offset $bit" -file [file join $build_dir $top.mcs]
puts "memchan: $bit and [file join $build_dir $top.mcs] written (register map $memchan_version,\
  BUILD_GIT $build_git, BUILD_TIME $build_time)"
