#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Regenerate the bus-trace pictures of docs/trace.md.
#
#   docs/trace/render-trace.sh BUILD_DIR [OUT_DIR]
#
# Runs BUILD_DIR/examples/vcdtrace (one tagged READ(10) on the simulated
# bus), then shows its VCD in GTKWave under Xvfb, once per time window, and
# takes a screenshot of each. OUT_DIR defaults to docs/img. The time windows
# are taken from the phase log, so they follow the trace if timings change.
# The VCD, the phase log and the raw screenshots are left in a temporary
# folder (named at the end), or in TRACE_KEEP if that is set.
#
# Needs (Debian): gtkwave xvfb xdotool imagemagick. Not used by CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)

if [ "${PCAM_TRACE_IN_XVFB:-}" != 1 ]; then
    [ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
    for tool in gtkwave xvfb-run xdotool import convert; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 1; }
    done
    build=$(cd "$1" && pwd)
    out=${2:-$here/../img}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    keep=${TRACE_KEEP:-$(mktemp -d)}
    mkdir -p "$keep"
    "$build/examples/vcdtrace" "$keep/tagged-read.vcd" >"$keep/phase.log"
    cat "$keep/phase.log"
    PCAM_TRACE_IN_XVFB=1 xvfb-run -a -s "-screen 0 1400x600x24" \
        sh "$0" "$keep" "$out"
    echo "VCD, phase log and screenshots: $keep"
    exit 0
fi

# --- inside Xvfb: $1 = folder with tagged-read.vcd and phase.log, $2 = OUT_DIR
work=$1
out=$2
vcd=$work/tagged-read.vcd
log=$work/phase.log

# Time (ns) of the Nth (default first) phase-log line matching a pattern;
# the log prints microseconds with three decimals (exact in a double).
at() {
    awk -v pat="$1" -v nth="${2:-1}" '
        $0 ~ pat && ++n == nth { printf "%.0f\n", $1 * 1000; exit }' "$log"
}
last() {
    awk -v pat="$1" '$0 ~ pat { t = $1 } END { printf "%.0f\n", t * 1000 }' "$log"
}

arb=$(at 'ARBITRATION won by 7')
free1=$(at 'T0  BUS FREE$')
resel=$(at 'RESELECTION')
datain=$(at 'PHASE DATA IN')
status=$(at 'PHASE STATUS')
free2=$(last 'T0  BUS FREE$')

# One screenshot: name, from, to (ns; empty = whole file).
shot() {
    name=$1
    if [ -n "$2" ]; then
        export TRACE_FROM=$2 TRACE_TO=$3
    else
        unset TRACE_FROM TRACE_TO
    fi
    # GTKWave finds phase.txt (named in the .gtkw) relative to its cwd.
    (cd "$here" && exec gtkwave -M -r gtkwaverc -S view.tcl "$vcd" tagged-read.gtkw) \
        >"$work/gtkwave-$name.log" 2>&1 &
    gw=$!
    xdotool search --sync --onlyvisible --name 'GTKWave' >/dev/null
    sleep 2
    import -window root "$work/$name-screen.png"
    kill "$gw"
    wait "$gw" 2>/dev/null || true
    # Keep the signal names and the waves; drop the toolbar above, the
    # scrollbars and the empty space below (GTKWave 3.3.118 layout, the
    # window at 0,0 as gtkwaverc places it).
    convert "$work/$name-screen.png" -crop 1386x328+0+64 +repage "$out/tagged-read-$name.png"
    echo "wrote $out/tagged-read-$name.png"
}

shot overview "" ""
shot select $((arb - 900)) $((free1 + 800))
shot reselect $((resel - 500)) $((datain + 1800))
shot complete $((status - 1300)) $((free2 + 800))
