#!/bin/sh
# The demo itself, given a build directory. Kept apart from demo.sh so the
# test suite can run it against its own build.
set -eu
b=${1:-build/demo}
D="$b/examples/pcamdecode"
say() { printf '\n## %s\n' "$*"; }
run() { printf '$ pcamdecode %s\n' "$*"; "$D" "$@" || true; }

echo "pcam demo: the SCSI codecs, decoding bytes as a driver sees them on the bus,"
echo "then one tagged read through the core on the simulated bus."
echo "(pcamctl, the full simulated-bus demo and the ASPI layer come with a later"
echo " issue; this shows what is real now.)"

say "CDBs: name, LBA, length in blocks and bytes, direction"
run cdb 28 00 00 00 12 34 00 00 08 00
run cdb 8a 00 00 00 00 01 00 00 00 00 00 00 01 00 00 00
run cdb 12 01 80 00 ff 00
run cdb 28 00 00

say "Sense data, fixed and descriptor formats"
run sense f0 00 03 00 00 12 34 0a 00 00 00 00 11 00 00 00 00 00
run sense 70 00 06 00 00 00 00 0a 00 00 00 00 29 00 00 00 00 00
run sense 72 05 24 00 00 00 00 08 02 06 00 00 cf 00 02 00
run sense 70 00 02 00 00 00 00 0a 00 00 00 00 04 01 00 00 00 00

say "SPI messages, as a target sends them"
run msg c1 20 07 01 03 01 0c 0f 04 02 00
run msg 01 06 04 09 00 3f 01 02
run msg 23 05

say "ASC/ASCQ table, including ranged entries"
run asc 3a 00
run asc 40 85

if [ -x "$b/examples/vcdtrace" ]; then
  say "One tagged READ(10) through the core on the simulated bus (phase log)"
  vcd="$b/tagged-read.vcd"
  "$b/examples/vcdtrace" "$vcd"
  echo "VCD trace written to $vcd (open it in GTKWave; docs/trace.md shows it drawn)"
fi
