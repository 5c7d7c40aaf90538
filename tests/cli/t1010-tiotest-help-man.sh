#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1010: --help and the man page cover the options table, both ways: every option the binary
# lists (`fsbench __man-options tiotest --list`) is in `tiotest --help` and in fsbench.1, and
# neither documents an option the table does not have. Also tiotest's defaults (-f 10 MiB,
# -b 4096, -t 4, -r 100000, -d .) as help shows them.
. "$(dirname "$0")/lib.sh"

"$FSBENCH" __man-options tiotest --list > "$SCRATCH/list" || fail "__man-options --list failed"
"$FSBENCH" tiotest --help > "$SCRATCH/help" || fail "tiotest --help failed"
[ "$(wc -l < "$SCRATCH/list")" -ge 19 ] || fail "the list has fewer options than tiotest's 19: $(cat "$SCRATCH/list")"

# the man page of this build: $BUILD (make check), else next to the binary, else build/
MAN=
for m in ${BUILD:+"$BUILD/fsbench.1"} "$(dirname "$FSBENCH")/fsbench.1" "$TESTS_DIR/../build/fsbench.1"; do
    [ -f "$m" ] && { MAN=$m; break; }
done
if [ -z "$MAN" ]; then
    [ -n "${BUILD:-}" ] && fail "no man page at $BUILD/fsbench.1"
    skip "no built man page found (run make)"
fi
# roff to text: '\-' is '-', font escapes go
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" > "$SCRATCH/man"

# the texts, a newline each side, searched with bash's patterns: *"$NL$x"[" $NL"]* is grep's
# "^x( |$)" (a grep per option and text was most of this test's CPU)
NL=$'\n'
list_t=$NL$(< "$SCRATCH/list")$NL
help_t=$NL$(< "$SCRATCH/help")$NL
man_t=$NL$(< "$SCRATCH/man")$NL
engines_t=$NL$(awk '/^\.SH ENGINES/{e=1;next} e&&/^\.SH/{exit} e' "$SCRATCH/man")$NL

# every tiotest option from tiotest.md §1 is in the table
for o in -f -b -d -t -r -k -L -T -W -S -X -M -c -F -R -o -O -D -h; do
    [[ $list_t == *"$NL$o"[" $NL"]* ]] || fail "tiotest option $o is missing from the options table"
done

# the engines' own options (issue 19: the engine declares them): listed for tiotest and in its
# --help under the engine's heading, documented once in the man page's ENGINES section
"$FSBENCH" list engines | awk '/^[ \t]/ { sub(/=.*/, "", $1); print $1 }' > "$SCRATCH/engine-opts"
[ -s "$SCRATCH/engine-opts" ] || fail "fsbench list engines shows no engine options"
eopts_t=$NL$(< "$SCRATCH/engine-opts")$NL
n=0 neng=0
while read -r a b; do
    n=$((n + 1))
    if [[ $eopts_t == *"$NL$a$NL"* ]]; then
        neng=$((neng + 1))
        [[ $help_t == *"$NL      $a"["= $NL"]* ]] || fail "--help does not document '$a'"
        [[ $engines_t == *"$NL.B $a"[" $NL"]* ]] || fail "$MAN's ENGINES section does not document '$a'"
        continue
    fi
    if [ -n "$b" ]; then s=$a l=$b; elif [ "${a#--}" != "$a" ]; then s= l=$a; else s=$a l=; fi
    # help: "  -f, --size=MIB ...", "  -L, --no-latency ...", "      --json=FILE ..."
    # the line's start, then "=", " " (help) or " " (man), or its end
    if [ -n "$s" ] && [ -n "$l" ]; then
        hre="  $s, $l" hend="= " mre=".B $s, $l"
    elif [ -n "$s" ]; then
        hre="  $s" hend=" " mre=".B $s"
    else
        hre="      $l" hend="= " mre=".B $l"
    fi
    [[ $help_t == *"$NL$hre"["$hend$NL"]* ]] || fail "--help does not document '$a $b'"
    [[ $man_t == *"$NL$mre"[" $NL"]* ]] || fail "$MAN does not document '$a $b'"
done < "$SCRATCH/list"

# and nothing more: --help and the man page's tiotest option list have exactly as many
# entries as the table (each of which was found above)
nhelp=$(grep -cE '^  (-[A-Za-z]|    --)' "$SCRATCH/help")
[ "$nhelp" = "$n" ] || fail "--help lists $nhelp options, the table $n"
# man: the .TP/.B entries between ".SS Options" and the next .SS of the TIOTEST section
awk '/^\.SH TIOTEST/{t=1} t&&/^\.SS Options/{o=1;next} o&&/^\.S[SH]/{exit} o&&prev==".TP"&&/^\.B /{print} {prev=$0}' \
    "$SCRATCH/man" > "$SCRATCH/man-opts"
[ "$(wc -l < "$SCRATCH/man-opts")" = "$((n - neng))" ] ||
    fail "man page lists $(wc -l < "$SCRATCH/man-opts") tiotest options, the table $((n - neng)) (and $neng engine options): $(cat "$SCRATCH/man-opts")"
ok "$n options: each in the table, --help and $MAN, and no others"

# tiotest's defaults and units
grep -Eq -- '^  -f, --size=MIB .*\(default: 10\)$' "$SCRATCH/help" || fail "-f default is not 10 (MiB)"
grep -Eq -- '^  -b, --block-size=BYTES .*\(default: 4096\)$' "$SCRATCH/help" || fail "-b default is not 4096"
grep -Eq -- '^  -t, --threads=N .*\(default: 4\)$' "$SCRATCH/help" || fail "-t default is not 4"
grep -Eq -- '^  -r, --random-ops=N .*\(default: 100000\)$' "$SCRATCH/help" || fail "-r default is not 100000 (tiotest HEAD)"
grep -Eq -- '^  -d, --dir=DIR .*\(default: \.\)$' "$SCRATCH/help" || fail "-d default is not ."
grep -Eq -- '^\.B -f, --size MIB$' "$SCRATCH/man" || fail "man: -f entry malformed"
grep -q -- '(default: 100000)' "$SCRATCH/man" || fail "man: -r default missing"
ok "defaults as tiotest 0.4.2"

# the man page documents the exit codes the commands use
sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/p' "$SCRATCH/man" | grep '^\.B ' > "$SCRATCH/exits"
for code in 0 1 2 3 130 143; do
    grep -Eq "^\.B ([0-9]+, )*$code(,|$)" "$SCRATCH/exits" || fail "man: EXIT STATUS does not list $code"
done
ok "man page has the exit codes"
