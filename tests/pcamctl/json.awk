# SPDX-License-Identifier: BSD-2-Clause
# A small JSON checker for the pcamctl tests (POSIX awk, mawk included).
# Reads one JSON document on stdin, checks its syntax (RFC 8259 grammar:
# objects, arrays, strings with escapes, numbers, true/false/null; nothing
# after the value), and prints it flattened, one leaf per line:
#
#   {"a":{"b":[1,"x"]}}   ->   .a.b[0]=1
#                              .a.b[1]=x
#                              .a.b#=2
#
# (arrays also give their length as PATH#=N). Exit status 1 with a message
# on stderr for invalid JSON or empty input.
function fail(msg) {
    printf "json.awk: %s at offset %d\n", msg, pos > "/dev/stderr"
    bad = 1
    exit 1
}
function ch() { return substr(s, pos, 1) }
function ws() {
    while (pos <= n && index(" \t\r\n", ch()) > 0)
        pos++
}
function hexval(h,   i, v, d) {
    v = 0
    for (i = 1; i <= 4; i++) {
        d = index("0123456789abcdef", tolower(substr(h, i, 1)))
        if (d == 0)
            fail("bad \\u escape")
        v = v * 16 + d - 1
    }
    return v
}
function str(   out, c, e, v) {
    if (ch() != "\"")
        fail("expected a string")
    pos++
    out = ""
    for (;;) {
        if (pos > n)
            fail("unterminated string")
        c = ch()
        if (c == "\"") {
            pos++
            return out
        }
        if (c == "\\") {
            e = substr(s, pos + 1, 1)
            if (e == "n") out = out "\n"
            else if (e == "t") out = out "\t"
            else if (e == "r") out = out "\r"
            else if (e == "b" || e == "f") out = out " "
            else if (e == "\"" || e == "\\" || e == "/") out = out e
            else if (e == "u") {
                v = hexval(substr(s, pos + 2, 4))
                out = out (v >= 32 && v < 127 ? sprintf("%c", v) : "?")
                pos += 4
            } else
                fail("bad escape")
            pos += 2
            continue
        }
        if (c < " ")
            fail("control character in a string")
        out = out c
        pos++
    }
}
function value(path,   c, v, i, k) {
    ws()
    if (pos > n)
        fail("unexpected end")
    c = ch()
    if (c == "{") {
        pos++
        ws()
        if (ch() == "}") {
            pos++
            print path "={}"
            return
        }
        for (;;) {
            ws()
            k = str()
            ws()
            if (ch() != ":")
                fail("expected ':'")
            pos++
            value(path "." k)
            ws()
            c = ch()
            pos++
            if (c == "}")
                return
            if (c != ",")
                fail("expected ',' or '}'")
        }
    }
    if (c == "[") {
        pos++
        ws()
        if (ch() == "]") {
            pos++
            print path "#=0"
            return
        }
        for (i = 0; ; i++) {
            value(path "[" i "]")
            ws()
            c = ch()
            pos++
            if (c == "]") {
                print path "#=" (i + 1)
                return
            }
            if (c != ",")
                fail("expected ',' or ']'")
        }
    }
    if (c == "\"") {
        v = str()
        print path "=" v
        return
    }
    if (match(substr(s, pos), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/) && RSTART == 1) {
        print path "=" substr(s, pos, RLENGTH)
        pos += RLENGTH
        return
    }
    if (substr(s, pos, 4) == "true" || substr(s, pos, 4) == "null") {
        print path "=" substr(s, pos, 4)
        pos += 4
        return
    }
    if (substr(s, pos, 5) == "false") {
        print path "=false"
        pos += 5
        return
    }
    fail("unexpected character '" c "'")
}
{ s = s $0 "\n" }
END {
    if (bad)
        exit 1
    n = length(s)
    pos = 1
    ws()
    if (pos > n)
        fail("empty input")
    value("")
    ws()
    if (pos <= n)
        fail("text after the JSON value")
}
