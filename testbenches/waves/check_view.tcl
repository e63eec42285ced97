# Runs inside GTKWave (gtkwave -S check_view.tcl waves.vcd VIEW.gtkw) after the dump file
# and the view are loaded. Checks that
#   - the dump file's facilities loaded (as many as FLYNN_EXPECT_FACS, the $var count),
#   - every signal the view names is a facility of the dump file,
#   - the view's signals are displayed, all of them and in the view's order, each in the
#     number format its flags give (hex, decimal, binary),
#   - the view's groups are displayed, in order,
#   - the view's start time and markers (when it sets them) took effect.
# Environment: FLYNN_VIEW (the .gtkw file), FLYNN_EXPECT_FACS (optional).
# Prints "flynn-check: ..." lines and ends GTKWave with exit status 0 (all good) or 1.

proc say {msg} { puts "flynn-check: $msg"; flush stdout }

proc read_view {path} {
  # Returns {signals groups timestart markers formats}; markers: {primary A B} or {} without
  # a '*' line; formats: each signal's number format flags (hex 0x02, decimal 0x04, binary 0x08).
  set f [open $path r]
  set text [read $f]
  close $f
  set signals {}
  set groups {}
  set timestart ""
  set markers {}
  set formats {}
  set flags 0
  foreach line [split $text "\n"] {
    set line [string trimright $line "\r"]
    if {$line eq ""} continue
    set c [string index $line 0]
    if {$c eq "@"} {
      scan [string range $line 1 end] %x flags
    } elseif {$c eq "-"} {
      if {$flags & 0x800000} { lappend groups [string range $line 1 end] }
    } elseif {$c eq "\["} {
      if {[regexp {^\[timestart\]\s+(\d+)} $line -> t]} { set timestart $t }
    } elseif {$c eq "*"} {
      set fields [split [string trim [string range $line 1 end]]]
      set markers [lrange $fields 1 3]
    } else {
      lappend signals $line
      lappend formats [expr {$flags & 0x0e}]
    }
  }
  return [list $signals $groups $timestart $markers $formats]
}

proc same_list {a b} {
  if {[llength $a] != [llength $b]} { return 0 }
  foreach x $a y $b { if {$x ne $y} { return 0 } }
  return 1
}

proc check {} {
  set errors {}
  set view $::env(FLYNN_VIEW)
  lassign [read_view $view] signals groups timestart markers formats

  # Facilities of the dump file.
  set nfacs [gtkwave::getNumFacs]
  set facs [dict create]
  for {set i 0} {$i < $nfacs} {incr i} { dict set facs [gtkwave::getFacName $i] 1 }
  say "dump [file tail [gtkwave::getDumpFileName]]: $nfacs facilities, time [gtkwave::getMinTime] .. [gtkwave::getMaxTime]"
  if {$nfacs <= 0} { lappend errors "no facilities loaded" }
  if {[info exists ::env(FLYNN_EXPECT_FACS)] && $nfacs != $::env(FLYNN_EXPECT_FACS)} {
    lappend errors "$nfacs facilities loaded, the dump file declares $::env(FLYNN_EXPECT_FACS) variables"
  }
  if {[dict size $facs] != $nfacs} { lappend errors "facility names are not unique" }

  # The view's signals exist and are displayed in order.
  set missing {}
  foreach s $signals { if {![dict exists $facs $s]} { lappend missing $s } }
  if {[llength $missing]} { lappend errors "signals of the view missing from the dump file: $missing" }
  set shown [gtkwave::getDisplayedSignals]
  say "view [file tail $view]: [llength $signals] signals in [llength $groups] groups; [llength $shown] signals displayed"
  if {![same_list $shown $signals]} {
    set absent {}
    foreach s $signals { if {[lsearch -exact $shown $s] < 0} { lappend absent $s } }
    if {[llength $absent]} {
      lappend errors "signals of the view not displayed: $absent"
    } else {
      lappend errors "displayed signals differ from the view: $shown"
    }
  }

  # Groups: every trace that opens a group (flag 0x800000), in order.
  set shown_groups {}
  set ntraces [gtkwave::getTotalNumTraces]
  for {set i 0} {$i < $ntraces} {incr i} {
    if {[gtkwave::getTraceFlagsFromIndex $i] & 0x800000} {
      lappend shown_groups [gtkwave::getTraceNameFromIndex $i]
    }
  }
  say "groups: $shown_groups"

  # Number formats: those of the signals' traces (not the groups' begin and end) as the view sets them.
  set shown_formats {}
  for {set i 0} {$i < $ntraces} {incr i} {
    set f [gtkwave::getTraceFlagsFromIndex $i]
    if {!($f & 0x1800000)} { lappend shown_formats [expr {$f & 0x0e}] }
  }
  set hex 0
  foreach f $formats { if {$f == 2} { incr hex } }
  say "formats: $hex signals in hex"
  if {![same_list $shown_formats $formats]} {
    lappend errors "displayed number formats {$shown_formats} differ from the view's {$formats}"
  }
  if {![same_list $shown_groups $groups]} { lappend errors "displayed groups {$shown_groups} differ from the view's {$groups}" }
  if {$ntraces != [llength $signals] + 2 * [llength $groups]} {
    lappend errors "$ntraces traces displayed, expected [llength $signals] signals + 2 x [llength $groups] group ends"
  }

  # Start time and markers.
  if {$timestart ne ""} {
    # GTKWave snaps the start to its time grid: allow one pixel's worth of time.
    set ws [gtkwave::getWindowStartTime]
    set we [gtkwave::getWindowEndTime]
    set pixel [expr {double($we - $ws) / max(1, [gtkwave::getWaveWidth])}]
    if {abs($ws - $timestart) > max(1.0, $pixel)} {
      lappend errors "window starts at $ws, the view says $timestart (one pixel is $pixel)"
    }
  }
  if {[llength $markers] == 3} {
    lassign $markers primary a b
    set got [list [gtkwave::getMarker] [gtkwave::getNamedMarker A] [gtkwave::getNamedMarker B]]
    say "markers: primary [lindex $got 0], A [lindex $got 1], B [lindex $got 2]"
    if {![same_list $got [list $primary $a $b]]} { lappend errors "markers $got, the view says $primary $a $b" }
    # The zoom must show the stretch between the markers: A and B both on screen (GTKWave
    # shows 2^-zoom / 200 time units per pixel).
    if {$a >= 0 && $b > $a} {
      set ws [gtkwave::getWindowStartTime]
      set we [gtkwave::getWindowEndTime]
      say "window: $ws .. $we (zoom [gtkwave::getZoomFactor], [gtkwave::getWaveWidth] pixels)"
      if {$a < $ws || $a > $we || $b > $we} {
        lappend errors "the window $ws .. $we (zoom [gtkwave::getZoomFactor]) does not show markers A $a .. B $b"
      }
    }
  }
  return $errors
}

if {[catch {check} errors]} {
  say "FAIL: Tcl error: $errors"
  exit 1
}
foreach e $errors { say "FAIL: $e" }
if {[llength $errors]} {
  say "RESULT fail"
  exit 1
}
say "RESULT ok"
exit 0
