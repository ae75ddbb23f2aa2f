#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Checks that keep docs/ true to the code (CTest label docs).
#   check.sh sizes SRC WORK [--print]
#       The storage table of docs/porting.md: sizeof pcam_bus, pcam_lun,
#       pcam_ccb and pcam_esp as compiled for the host, -m32 and Cortex-M3
#       (read with nm -S from docs/sizes.c), and the worked example computed
#       from them. Fails when the guide's block differs; --print prints the
#       block to paste into the guide instead.
#   check.sh template SRC WORK
#       hal/template/template.c compiles freestanding (no C library headers
#       reachable) for the host and Cortex-M3, warning-free.
#   check.sh plots SRC WORK BUILD
#       bench/plots.sh --quick against BUILD's pcambench into WORK: every
#       PNG is made and is a PNG, and pcambench's result files agree with
#       each other (per-second counts, per-target totals and the latency
#       histogram all add up to the commands it reports).
#   check.sh fragment SRC OUT
#       Extracts the first ```c block of docs/mainpage.md into OUT (the
#       docs.mainpage test compiles, links and runs it).
set -eu
mode=$1 src=$2 work=$3
cc=${CC:-cc}
fail() { echo "FAIL: $*" >&2; exit 1; }
ff="-std=c99 -ffreestanding -nostdinc -fno-builtin -Wall -Wextra -Wpedantic -Werror"
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not found (scripts/deps.sh installs it)"; }

# size_of VARIANT SYMBOL: bytes of pcam_size_SYMBOL in docs/sizes.c built for VARIANT.
objfor() {
  case $1 in
    host) c=$cc arch="" nm=nm ;;
    m32) c=$cc arch=-m32 nm=nm ;;
    cortex-m3) c=arm-none-eabi-gcc arch="-mcpu=cortex-m3 -mthumb" nm=arm-none-eabi-nm ;;
  esac
  need "$c"
  inc=$($c $arch -print-file-name=include)
  # shellcheck disable=SC2086
  $c $ff $arch -isystem "$inc" -I"$src/include" -c "$src/docs/sizes.c" -o "$work/sizes-$1.o"
  $nm -S --defined-only "$work/sizes-$1.o" >"$work/sizes-$1.nm"
}
size_of() {
  hex=$(awk -v s="pcam_size_$2" '$4 == s { print $2 }' "$work/sizes-$1.nm")
  [ -n "$hex" ] && echo $((0x$hex))
}

case $mode in
sizes)
  rm -rf "$work"; mkdir -p "$work"
  for v in host m32 cortex-m3; do objfor $v; done
  for v in host m32 cortex-m3; do
    for s in bus lun ccb esp; do
      n=$(size_of $v $s)
      [ -n "$n" ] && [ "$n" -gt 0 ] || fail "no size for pcam_$s ($v)"
      eval "${s}_$(echo $v | tr - _)=$n"
    done
  done
  {
    echo "| storage | x86-64 | i386 (-m32) | Cortex-M3 |"
    echo "|---|---:|---:|---:|"
    for s in bus lun ccb esp; do
      eval "echo \"| \\\`pcam_$s\\\` | \$${s}_host | \$${s}_m32 | \$${s}_cortex_m3 |\""
    done
    echo
    echo "Worked example, Cortex-M3: a narrow ESP bus (8 IDs), 1 LUN per target, 16 CCBs:"
    echo
    tl=$((8 * lun_cortex_m3)) tc=$((16 * ccb_cortex_m3))
    line() { printf '    %-40s %6d\n' "$1" "$2"; }
    line "pcam_bus" "$bus_cortex_m3"
    line "pcam_lun x PCAM_BUS_LUNS(8, 1) = 8 x $lun_cortex_m3" "$tl"
    line "pcam_ccb x 16 = 16 x $ccb_cortex_m3" "$tc"
    line "pcam_esp (the back-end's softc)" "$esp_cortex_m3"
    line "total (bytes)" "$((bus_cortex_m3 + tl + tc + esp_cortex_m3))"
    echo
    echo "The defaults on a wide chip (16 IDs x 8 LUNs), bus and LUN array, x86-64:"
    echo "$bus_host + 128 x $lun_host = $((bus_host + 128 * lun_host)) bytes."
  } >"$work/block.md"
  if [ "${4:-}" = --print ]; then cat "$work/block.md"; exit 0; fi
  sed -n '/<!-- sizes:begin/,/<!-- sizes:end/p' "$src/docs/porting.md" | sed '1d;$d' >"$work/doc.md"
  if ! diff -u "$work/doc.md" "$work/block.md"; then
    fail "docs/porting.md's storage numbers are stale (above: - the guide, + this build); paste the output of: sh docs/check.sh sizes . /tmp/sizes --print"
  fi
  echo "docs sizes: the storage table in docs/porting.md matches sizeof on x86-64, i386 and Cortex-M3"
  ;;
template)
  rm -rf "$work"; mkdir -p "$work"
  for v in host cortex-m3; do
    case $v in
      host) c=$cc arch="" ;;
      cortex-m3) c=arm-none-eabi-gcc arch="-mcpu=cortex-m3 -mthumb -Os" ;;
    esac
    need "$c"
    inc=$($c $arch -print-file-name=include)
    # shellcheck disable=SC2086
    $c $ff $arch -isystem "$inc" -I"$src/include" -I"$src/hal/template" \
       -c "$src/hal/template/template.c" -o "$work/template-$v.o"
  done
  echo "docs template: hal/template/template.c compiles freestanding for the host and Cortex-M3"
  ;;
plots)
  build=$4
  rm -rf "$work"
  sh "$src/bench/plots.sh" --quick "$build" "$work"
  for p in starvation-share latency iops-depth instructions-depth; do
    [ "$(od -An -tx1 -N8 "$work/$p.png" | tr -d ' \n')" = 89504e470d0a1a0a ] ||
      fail "$p.png is not a PNG"
  done
  for a in off on; do
    d="$work/data/starve-$a"
    cmds=$(sed 's/.*"commands":\([0-9]*\).*/\1/' "$d.json")
    tgt=$(sed 's/.*"per_target":\[\([0-9,]*\)\].*/\1/' "$d.json" | tr , '\n' | awk '{s += $1} END {print s}')
    ser=$(awk -F, 'NR > 1 {s += $2} END {print s}' "$d-series.csv")
    hist=$(awk -F, 'NR > 1 {s += $3} END {print s}' "$d-latency.csv")
    [ -n "$cmds" ] && [ "$cmds" -gt 0 ] || fail "starve-$a: no commands"
    [ "$tgt" = "$cmds" ] && [ "$ser" = "$cmds" ] && [ "$hist" = "$cmds" ] ||
      fail "starve-$a: commands $cmds, per-target sum $tgt, per-second sum $ser, histogram sum $hist"
  done
  # Aging on must share the bus, aging off must starve ID 0: the pictures'
  # point, checked on the data they are drawn from (BYTE's failure; design.md).
  on0=$(awk -F, 'NR > 1 {s += $3; t += $2} END {printf "%d", 1000 * s / t}' "$work/data/starve-on-series.csv")
  off0=$(awk -F, 'NR > 1 {s += $3; t += $2} END {printf "%d", 1000 * s / t}' "$work/data/starve-off-series.csv")
  [ "$on0" -ge 200 ] && [ "$off0" -le 20 ] ||
    fail "ID 0's share: aging on $on0 per mille (expected >= 200), off $off0 (expected <= 20)"
  echo "docs plots: 4 PNGs made; result files consistent; ID 0 gets $off0 per mille without aging, $on0 with"
  ;;
fragment)
  awk '/^```c$/ { on = 1; n++; next } /^```/ { if (on) exit; } on && n == 1 { print }' \
      "$src/docs/mainpage.md" >"$work"
  [ -s "$work" ] || fail "no \`\`\`c block in docs/mainpage.md"
  ;;
*) fail "unknown mode $mode" ;;
esac
