#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0240: the bash and zsh completion, generated from the binary's tables by
# scripts/mkcompletion.sh (make builds build/completion/fsbench and _fsbench). In a bash started
# with the completion file, the completion function (which answers with compgen) completes
# `fsbench ma` to matrix, `fsbench tiotest --js` to --json, `--engine io_` to io_uring, `history
# tr` to trend and `history trend read.latency_p9` to the phase's latency keys; every command's
# options are those its --help lists. The zsh file is valid zsh and has the same words.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$TESTS_DIR/.." && pwd)
"$TOP/scripts/mkcompletion.sh" "$FSBENCH" bash > fsbench.bash || fail "mkcompletion.sh bash: exit $?"
"$TOP/scripts/mkcompletion.sh" "$FSBENCH" zsh > _fsbench || fail "mkcompletion.sh zsh: exit $?"
"$TOP/scripts/mkcompletion.sh" "$FSBENCH" fish > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "mkcompletion.sh fish: exit $rc, expected 2"

# complete LINE: what bash's programmable completion offers for the last word of LINE
complete_line() {
    bash --norc --noprofile -c '
        . ./fsbench.bash || exit 1
        complete -p fsbench > /dev/null || exit 1
        read -r -a COMP_WORDS <<< "$1"
        [[ $1 == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$1 COMP_POINT=${#1}
        _fsbench fsbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$1"
}
expect() {
    local line=$1; shift
    got=$(complete_line "$line" | LC_ALL=C sort | tr '\n' ' ')
    [ "$got" = "$* " ] || fail "'$line<TAB>': '$got', expected '$* '"
    ok "'$line<TAB>' -> $*"
}
expect "fsbench ma" matrix
expect "fsbench tiotest --js" --json
expect "fsbench fs_mark --engine io_" io_uring
expect "fsbench history tr" trend
expect "fsbench history trend read.latency_p9" read.latency_p90_ns read.latency_p99_9_ns read.latency_p99_ns
expect "fsbench list e" engines

# every command's options: exactly the long and short options in its --help
for c in $(fsb list); do
    fsb "$c" --help > help 2>&1
    # the option column: "  -f, --size=MIB   text" (the names before the text)
    sed -nE 's/^ +(-[^ ]+( --?[^ ]+)?)( .*)?$/\1/p' help | tr ', ' '\n\n' | sed 's/=.*//; s/\[$//' |
        grep -E '^--?[A-Za-z0-9]' | sort -u > help.opts
    [ -s help.opts ] || fail "$c --help: no options found"
    complete_line "fsbench $c -" | sort -u > comp.opts
    missing=$(comm -23 help.opts comp.opts | tr '\n' ' ')
    [ -z "$missing" ] || fail "$c: --help's options not completed: $missing"
done
ok "every command's --help options complete"

need_cmd zsh
zsh -n _fsbench || fail "_fsbench is not valid zsh"
grep -q '^#compdef fsbench' _fsbench || fail "_fsbench: no #compdef line"
grep -q 'tiotest) opts=(.* --json ' _fsbench || fail "_fsbench: tiotest's --json missing"
ok "the zsh completion parses"
