# SPDX-License-Identifier: BSD-2-Clause
# Sums the kernel's function_graph trace (tracefs "trace", funcgraph-tail
# on) per function: a leaf prints "fn();" with its time, a parent
# "} /* fn */". Prints "PFX: fn NAME calls N mean_us M total_ms T" per
# function (-v pfx=PFX). Used in the guests of bench/linux-profile.sh and
# of bench/linux-side-by-side.sh's icount mode (copied into the initramfs).
/ us / && (/\(\);/ || /\/\* /) {
  t = 0; for (i = 1; i <= NF; i++) if ($(i + 1) == "us") {t = $i; break}
  n = ""; for (i = 1; i <= NF; i++) if ($i ~ /\(\);$/ || ($i == "/*" && i < NF)) {n = ($i == "/*") ? $(i + 1) : $i; break}
  if (n ~ /^\[/) n = $(i - 1)  # "fn [module]();"
  sub(/\(\);$/, "", n); sub(/\[.*/, "", n)
  if (n != "") {c[n]++; s[n] += t}
}
END {for (n in c) printf "%s: fn %s calls %d mean_us %.3f total_ms %.3f\n", pfx, n, c[n], s[n] / c[n], s[n] / 1000}
