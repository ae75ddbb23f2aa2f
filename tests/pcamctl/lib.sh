# SPDX-License-Identifier: BSD-2-Clause
# Shared helpers of the pcamctl test scripts (run.sh, cli.sh): the work
# directory, run/has/hasnt and the JSON checks (json.awk). Sourced, never run.
set -u
case_=$1
P=${PCAMCTL:?}
J="awk -f ${SRC:?}/tests/pcamctl/json.awk"
rm -rf "${WORK:?}"
mkdir -p "$WORK"
cd "$WORK" || exit 1
unset PCAMCTL_SIM

fail() {
    echo "FAIL ($case_): $*" >&2
    exit 1
}
# run WANT_RC CMD...: stdout in out, stderr in err.
run() {
    want=$1
    shift
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "--- stdout"; cat out; echo "--- stderr"; cat err
        fail "'$*' exited $rc, expected $want"
    fi
}
# has FILE TEXT: a fixed string is in FILE.
has() {
    grep -F -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1 lacks '$2'"; }
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then cat "$1"; fail "$1 has '$2'"; fi
}
# jeq FILE PATH VALUE: FILE is valid JSON and its leaf PATH is VALUE.
jeq() {
    $J <"$1" >"$1.flat" || { cat "$1"; fail "$1 is not valid JSON"; }
    grep -F -x -q -- "$2=$3" "$1.flat" || { cat "$1.flat"; fail "JSON $2 is not '$3'"; }
}
# The examples of the man page (EXAMPLES) and README.md (indented code),
# one a line without the leading "pcamctl ", continuation lines joined.
doc_examples() {
    {
        sed -n '/^\.SH EXAMPLES/,/^\.SH SEE/p' "$SRC/examples/pcamctl/pcamctl.1" |
            sed 's/\\-/-/g; s/\\e$/\\/' | awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }'
        grep '^    pcamctl ' "$SRC/examples/pcamctl/README.md"
    } | sed -n 's/^ *pcamctl //p' | grep -v '^\[GLOBAL OPTIONS\]'
}
jval() {
    $J <"$1" | awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }'
}

