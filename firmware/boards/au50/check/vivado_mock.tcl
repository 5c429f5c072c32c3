# A small stand-in for Vivado's Tcl shell, to run the board's Vivado scripts where Vivado is not
# installed: every Vivado command the scripts may use is defined here and records what it was
# asked; any other command is refused (a typo or a command this mock does not know fails the
# run). XDC files are evaluated too, in an interpreter that knows the constraint commands only.
# At the end the IP settings are compared with the expected ones (computed by check/tcl_mock.py
# from regmap/memchan.toml) and the flash image's layout is checked.
#
#   tclsh vivado_mock.tcl EXPECT.tcl [-replace NAME FILE]... SCRIPT [ARG...]
#     EXPECT.tcl sets `expect_ip` (ip -> {CONFIG.KEY value ...}) and `expect_cfgmem` (option
#     -> value); -replace sources FILE wherever the scripts source a file named NAME (the
#     negative controls plant their faults that way)

set mock_errors {}
proc mock_fail {msg} { global mock_errors; lappend mock_errors $msg }

set expect_file [lindex $argv 0]
set argv [lrange $argv 1 end]
array set replacement {}
while {[lindex $argv 0] eq "-replace"} {
  set replacement([lindex $argv 1]) [lindex $argv 2]
  set argv [lrange $argv 3 end]
}
set mock_script [lindex $argv 0]
set argv [lrange $argv 1 end]
set argc [llength $argv]
source $expect_file

# the text of a file, or of its replacement; the scripts still see their own path (info script)
proc planted_text {path} {
  global replacement
  set name [file tail $path]
  set from [expr {[info exists replacement($name)] ? $replacement($name) : $path}]
  set f [open $from]
  set text [read $f]
  close $f
  return $text
}
rename source tcl_source
proc source {path} {
  if {![file exists $path]} { mock_fail "source: no file $path"; return }
  set outer [info script]
  info script $path
  set rc [catch {uplevel #0 [planted_text $path]} err]
  info script $outer
  if {$rc} { error $err }
}

# ---- Vivado's commands ------------------------------------------------------------------
array set ip_config {}
set ips {}
set cfgmem_args {}
set read_files {}

proc create_project {args} {}
proc current_project {args} { return project }
proc current_design {args} { return design }
proc create_ip {args} {
  global ips ip_config
  set i [lsearch $args -module_name]
  if {$i < 0} { mock_fail "create_ip without -module_name: $args"; return }
  set name [lindex $args [expr {$i + 1}]]
  lappend ips $name
  set ip_config($name) {}
  return ip:$name
}
proc get_ips {args} {
  global ips
  if {[llength $args] == 0} { return [lmap n $ips {string cat ip: $n}] }
  set name [lindex $args end]
  if {[lsearch -exact $ips $name] < 0} { mock_fail "get_ips: no IP $name"; return {} }
  return ip:$name
}
proc set_property {args} {
  global ip_config
  if {[lindex $args 0] eq "-dict"} {
    set pairs [lindex $args 1]
    set obj [lindex $args 2]
  } else {
    set pairs [lrange $args 0 1]
    set obj [lindex $args 2]
  }
  if {[llength $pairs] % 2 != 0} { mock_fail "set_property: odd list of names and values: $pairs" }
  if {[string match ip:* $obj]} {
    set name [string range $obj 3 end]
    foreach {k v} $pairs {
      if {![string match CONFIG.* $k]} { mock_fail "$name: property $k is not a CONFIG parameter" }
      dict set ip_config($name) $k $v
    }
  }
}
proc get_property {name args} {
  switch -- $name {
    SLACK { return 0.000 }
    default { return value_of_$name }
  }
}
proc generate_target {args} {}
proc synth_ip {args} {}
proc read_verilog {args} {
  global read_files
  foreach f [lindex $args end] {
    if {![file exists $f]} { mock_fail "read_verilog: no file $f" }
    lappend read_files $f
  }
}
proc read_xdc {path} {
  if {![file exists $path]} { mock_fail "read_xdc: no file $path"; return }
  xdc_eval $path
}
foreach cmd {synth_design opt_design place_design phys_opt_design route_design write_checkpoint
             report_utilization report_timing_summary report_clock_interaction report_cdc
             write_bitstream open_hw_manager connect_hw_server open_hw_target current_hw_device
             program_hw_devices refresh_hw_device close_hw_manager create_hw_bitstream
             program_hw_cfgmem} {
  proc $cmd {args} {}
}
proc get_timing_paths {args} { return path }
proc get_hw_devices {args} { return xcu50_u55n_0 }
proc get_cfgmem_parts {name} { return $name }
proc create_hw_cfgmem {args} { return cfgmem }
proc write_cfgmem {args} {
  global cfgmem_args
  set cfgmem_args $args
}

# ---- XDC: the constraint commands only ---------------------------------------------------
proc xdc_eval {path} {
  set x [interp create]
  foreach cmd {set_property create_clock create_generated_clock set_clock_groups set_max_delay
               set_min_delay set_false_path set_bus_skew set_input_delay set_output_delay
               set_multicycle_path} {
    interp alias $x $cmd {} xdc_noop
  }
  foreach cmd {get_ports get_clocks get_cells get_pins get_nets current_design} {
    interp alias $x $cmd {} xdc_query
  }
  $x eval {rename unknown {}}
  $x alias unknown xdc_unknown $path
  if {[catch {$x eval [planted_text $path]} err]} { mock_fail "[file tail $path]: $err" }
  interp delete $x
}
proc xdc_noop {args} {}
proc xdc_query {args} { return object }
proc xdc_unknown {path args} { error "unknown constraint command: [lindex $args 0]" }

# ---- run the script, refusing what Vivado would not know ---------------------------------
rename unknown tcl_unknown
proc unknown {args} {
  mock_fail "unknown command: [lindex $args 0]"
  error "unknown command: [lindex $args 0]"
}
if {[catch {source $mock_script} err]} { mock_fail "[file tail $mock_script]: $err" }

# ---- the checks --------------------------------------------------------------------------
proc same {a b} {
  if {[string is double -strict $a] && [string is double -strict $b]} { return [expr {$a == $b}] }
  if {[regexp {^(0x)?[0-9A-Fa-f]+$} $a] && [regexp {^(0x)?[0-9A-Fa-f]+$} $b] &&
      ([string match 0x* $a] || [string match 0x* $b])} {
    return [expr {[scan [regsub {^0x} $a {}] %llx] == [scan [regsub {^0x} $b {}] %llx]}]
  }
  return [string equal -nocase $a $b]
}
set checked 0
if {[info exists expect_ip]} {
  dict for {ip pairs} $expect_ip {
    if {![info exists ip_config($ip)]} { mock_fail "IP $ip was not created"; continue }
    dict for {k v} $pairs {
      if {![dict exists $ip_config($ip) $k]} {
        mock_fail "$ip $k not set, expected $v"
      } elseif {![same [dict get $ip_config($ip) $k] $v]} {
        mock_fail "$ip $k is [dict get $ip_config($ip) $k], expected $v"
      }
      incr checked
    }
  }
}
if {[info exists expect_cfgmem]} {
  dict for {opt v} $expect_cfgmem {
    set i [lsearch -exact $cfgmem_args $opt]
    if {$i < 0} { mock_fail "write_cfgmem without $opt"; continue }
    set got [lindex $cfgmem_args [expr {$i + 1}]]
    if {$opt eq "-loadbit"} { set got [lrange $got 0 1] }
    if {![same $got $v] && $got ne $v} { mock_fail "write_cfgmem $opt is $got, expected $v" }
    incr checked
  }
}
if {[llength $mock_errors] > 0} {
  foreach e $mock_errors { puts "vivado mock: FAIL $e" }
  exit 1
}
puts "vivado mock: [file tail $mock_script] ran ([llength $ips] IP, [llength $read_files] sources, $checked settings as expected)"
