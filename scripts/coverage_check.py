#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Coverage per folder, checked against the floors in the tree (issue 41).

usage: coverage_check.py GCOVR_JSON_SUMMARY FLOORS_FILE

Prints lines and branches covered for every folder of the summary (two
path components: core/engine, hal/esp, aspi/win32, ...) and for each
folder the floors file names (core, hal, ...), then fails (exit 1) when a
folder named in the floors file is below its floor. The floors are a
ratchet: they only move up, to what a run measured (the script says when
a floor may rise by a whole point or more).

FLOORS_FILE lines: FOLDER LINE% BRANCH%; '#' starts a comment.
"""
import json
import sys


def folder_of(path, depth):
    parts = path.split("/")
    return "/".join(parts[: min(depth, len(parts) - 1)])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        summary = json.load(f)
    floors = []
    with open(sys.argv[2], encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 3:
                sys.exit(f"{sys.argv[2]}:{n}: want FOLDER LINE% BRANCH%")
            floors.append((line[0].rstrip("/"), float(line[1]), float(line[2])))
    sums = {}

    def add(key, rec):
        s = sums.setdefault(key, [0, 0, 0, 0])
        s[0] += rec["line_covered"]
        s[1] += rec["line_total"]
        s[2] += rec["branch_covered"]
        s[3] += rec["branch_total"]

    for rec in summary["files"]:
        name = rec["filename"]
        add(folder_of(name, 2), rec)
        for folder, _, _ in floors:
            if name.startswith(folder + "/"):
                add("=" + folder, rec)

    def pct(a, b):
        return 100.0 * a / b if b else 100.0

    print(f"{'folder':<22}{'lines':>18}{'%':>8}{'branches':>18}{'%':>8}")
    for key in sorted(k for k in sums if not k.startswith("=")):
        lc, lt, bc, bt = sums[key]
        print(f"{key:<22}{lc:>8} / {lt:<7}{pct(lc, lt):>7.1f}%{bc:>8} / {bt:<7}{pct(bc, bt):>7.1f}%")
    print(f"{'floors':<22}{'lines':>18}{'%':>8}{'branches':>18}{'%':>8}{'floor':>16}")
    bad = 0
    for folder, lf, bf in floors:
        lc, lt, bc, bt = sums.get("=" + folder, [0, 0, 0, 0])
        lp, bp = pct(lc, lt), pct(bc, bt)
        verdict = ""
        if lt == 0:
            verdict = "  NOT MEASURED"
            bad += 1
        elif lp + 1e-9 < lf or bp + 1e-9 < bf:
            verdict = "  BELOW THE FLOOR"
            bad += 1
        elif lp >= lf + 1 or bp >= bf + 1:
            verdict = f"  (the floor may rise to {int(lp * 10) / 10:.1f} {int(bp * 10) / 10:.1f})"
        print(f"{folder + '/':<22}{lc:>8} / {lt:<7}{lp:>7.1f}%{bc:>8} / {bt:<7}{bp:>7.1f}%"
              f"{lf:>7.1f} {bf:>5.1f}{verdict}")
    if bad:
        print(f"coverage: {bad} folder(s) below the floor of {sys.argv[2]}")
        sys.exit(1)
    print(f"coverage: every folder at or above its floor ({sys.argv[2]})")


if __name__ == "__main__":
    main()
