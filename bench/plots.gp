# SPDX-License-Identifier: BSD-2-Clause
# gnuplot script of bench/plots.sh: turns pcambench's CSV files in $data
# into the PNGs in $out. Only draws; every number comes from pcambench.
set datafile separator ","
set terminal pngcairo size 1200,460 font "DejaVu Sans,11" linewidth 1.5
set grid lc rgb "#dddddd"
set key outside right top

# 1. Per-target share over time, aging off | aging on.
set output out."/starvation-share.png"
set multiplot layout 1,2 title "BYTE starvation workload: 4 disks, depth 32 each, Fast-10 narrow bus (share of completions per second)"
set xlabel "simulated time (s)"
set ylabel "share of completions"
set yrange [0:1]
set format y "%.0f%%"
set format y "%g"
set key inside top center horizontal
set title "aging off: IDs 0 and 1 starve (their commands time out at 30 s)"
plot for [i=0:3] data."/starve-off-series.csv" using 1:(column(7+i)) skip 1 with steps title sprintf("ID %d", i)
set title "aging on (defaults): every target about 25%"
plot for [i=0:3] data."/starve-on-series.csv" using 1:(column(7+i)) skip 1 with steps title sprintf("ID %d", i)
unset multiplot
unset title
set key outside right top

# 2. Latency distribution: fraction of commands slower than x.
set terminal pngcairo size 900,520 font "DejaVu Sans,11" linewidth 1.5
set output out."/latency.png"
set title "Latency of the starvation workload: fraction of commands slower than x"
set logscale xy
set xlabel "latency (ms)"
set ylabel "fraction of commands slower"
set yrange [1e-5:1.5]
set format y "10^{%L}"
set key inside left bottom
plot data."/starve-off-latency.csv" using ($2/1000.0):($5 > 0 ? $5 : 1e-6) skip 1 with steps title "aging off", \
     data."/starve-on-latency.csv" using ($2/1000.0):($5 > 0 ? $5 : 1e-6) skip 1 with steps title "aging on"
unset logscale
unset format
set format y "%g"
set autoscale y

# 3. IOPS against queue depth.
set output out."/iops-depth.png"
set title "4 KiB random reads, 4 disks (seek-bound model) on a Fast-20 wide bus: deeper queues let the disks reorder"
set logscale x 2
set xlabel "queue depth per disk (tags outstanding)"
set ylabel "IOPS"
set yrange [0:*]
unset key
plot data."/depth.csv" using 3:11 skip 1 with linespoints pt 7 title "IOPS"

# 4. Core instructions per command against outstanding commands.
set output out."/instructions-depth.png"
set title "Host instructions per 4 KiB command spent in core/ (callgrind, x86-64)"
set xlabel "commands outstanding on the bus"
set ylabel "instructions per command"
plot data."/instructions.csv" using 1:4 skip 1 with linespoints pt 7 title "core/"

# 5. The fairness sweep: one point per cell (worst over its seeds), in the
# order pcambench --sweep runs them (disk model, then bus and targets, then
# speed, then depth); the goal lines are issue 25's.
set terminal pngcairo size 1200,640 font "DejaVu Sans,11" linewidth 1.5
set output out."/sweep-wait.png"
unset logscale
set multiplot layout 2,1 title "Fairness sweep, default settings: mixed 4-32 KiB random reads, every disk model, 4/7/15 targets, narrow/wide, Fast-10..80"
set xlabel "cell (grouped by disk model: ultra2, 1995, fast, cdrom)"
set key inside top left horizontal
stats data."/sweep.csv" using 7 skip 1 nooutput
set xrange [-1:STATS_records]
set ylabel "worst wait / command timeout"
set yrange [0:1.05]
set title "worst wait of a command as a share of the 10 s timeout (goal: at most 0.25)"
plot for [d in "8 32 64"] data."/sweep.csv" using ($0):(column(5) == d + 0 ? column(8) : NaN) skip 1 with points pt 7 ps 0.6 title "depth ".d, \
     0.25 with lines dt 2 lc rgb "#cc0000" title "goal"
set ylabel "min/max completion share"
set key inside bottom left horizontal
set yrange [0:1.05]
set title "fewest completions of a target / most (goal: at least 0.8)"
plot for [d in "8 32 64"] data."/sweep.csv" using ($0):(column(5) == d + 0 ? column(7) : NaN) skip 1 with points pt 7 ps 0.6 title "depth ".d, \
     0.8 with lines dt 2 lc rgb "#cc0000" title "goal"
unset multiplot
