# SPDX-License-Identifier: BSD-2-Clause
# usage: awk -v out=FILE -f asc_ref.awk asc_list.txt
# Turns core/proto/asc_list.txt into the plain C reference table that
# test_asc_table.c compares the compressed table against. Written in awk,
# independently of scripts/gen-asc-table.py, so the check does not share
# the generator's parsing.
BEGIN { ne = 0; nr = 0 }
/^#/ || /^$/ { next }
{
  asc = $1; q = $2
  text = $0; sub(/^[^ ]+ [^ ]+ /, "", text)
  gsub(/\\/, "\\\\", text); gsub(/"/, "\\\"", text)
  if (q ~ /-/) {
    split(q, lh, "-")
    rng[nr++] = sprintf("    {0x%s, 0x%s, 0x%s, \"%s\"},", asc, lh[1], lh[2], text)
  } else {
    ex[ne++] = sprintf("    {0x%s%s, \"%s\"},", asc, q, text)
  }
}
END {
  print "/* Generated at build time from core/proto/asc_list.txt by asc_ref.awk. */" > out
  print "static const struct { unsigned code; const char *text; } asc_ref_exact[] = {" > out
  for (i = 0; i < ne; i++) print ex[i] > out
  print "};" > out
  print "static const struct { unsigned asc, lo, hi; const char *text; } asc_ref_range[] = {" > out
  for (i = 0; i < nr; i++) print rng[i] > out
  print "};" > out
}
