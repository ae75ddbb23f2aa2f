# SPDX-License-Identifier: BSD-2-Clause
# Zoom GTKWave to the time range in TRACE_FROM..TRACE_TO (ns), or to the
# whole file when they are not set. Used by render-trace.sh.
if {[info exists ::env(TRACE_FROM)] && [info exists ::env(TRACE_TO)]} {
    gtkwave::setZoomRangeTimes $::env(TRACE_FROM) $::env(TRACE_TO)
} else {
    gtkwave::/Time/Zoom/Zoom_Full
}
