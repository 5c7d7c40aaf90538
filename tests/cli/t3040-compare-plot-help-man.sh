#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3040: compare's, plot's, report's and history's --help and man page cover their options
# tables, both ways.
. "$(dirname "$0")/lib.sh"
MAN=
for m in ${BUILD:+"$BUILD/fsbench.1"} "$(dirname "$FSBENCH")/fsbench.1" "$TESTS_DIR/../build/fsbench.1"; do
    [ -f "$m" ] && { MAN=$m; break; }
done
[ -n "$MAN" ] || skip "no built man page found (run make)"
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" > "$SCRATCH/man"
# each option looked up by bash in the texts read once (two greps an option were most of the
# test's CPU): in --help as a fixed string, in the man page as grep -E's line "^.B (A, )?L( |$)"
nl=$'\n'
for cmd in compare plot report history; do
    "$FSBENCH" __man-options $cmd --list > "$SCRATCH/list" || fail "__man-options $cmd --list"
    "$FSBENCH" $cmd --help > "$SCRATCH/help" || fail "$cmd --help"
    sect=${cmd^^}
    awk -v s="^\\\\.SH $sect" '$0 ~ s {t=1; next} t && /^\.SH/ {exit} t' "$SCRATCH/man" > "$SCRATCH/sect"
    [ -s "$SCRATCH/sect" ] || fail "man page has no $sect section"
    help_text=$(< "$SCRATCH/help") sect_text=$nl$(< "$SCRATCH/sect")$nl
    n=0
    while read -r a b; do
        n=$((n + 1))
        if [ -n "$b" ]; then l=$b; else l=$a; fi
        [[ $help_text == *"$l"* ]] || fail "$cmd --help lacks $l"
        re="${nl}\\.B ($a, )?$l( [^${nl}]*)?${nl}"
        [[ $sect_text =~ $re ]] || fail "man $sect lacks $a $b"
    done < "$SCRATCH/list"
    m=$(awk '/^\.SS Options/{o=1;next} o&&/^\.S[SH]/{exit} o&&prev==".TP"&&/^\.B /{print} {prev=$0}' "$SCRATCH/sect" | wc -l)
    [ "$m" = "$n" ] || fail "man $sect lists $m options, the table $n"
done
ok "compare, plot, report and history options in --help and the man page"
