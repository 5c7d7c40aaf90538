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

# complete LINE...: what bash's programmable completion offers for the last word of each LINE,
# one "N<tab>WORD" line per word of the Nth LINE (0, 1, ...), sorted (C locale) by N, then
# WORD. One bash for all the lines: a bash and a sort per line were a third of the test's CPU.
complete_lines() {
    bash --norc --noprofile -c '
        . ./fsbench.bash || exit 1
        complete -p fsbench > /dev/null || exit 1
        n=0
        for line; do
            read -r -a COMP_WORDS <<< "$line"
            [[ $line == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
            COMPREPLY=()
            _fsbench fsbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            [ ${#COMPREPLY[@]} = 0 ] && COMPREPLY=("")
            printf "$n\t%s\n" "${COMPREPLY[@]}"
            n=$((n + 1))
        done' _ "$@" > comp || fail "bash with fsbench.bash: exit $?"
    LC_ALL=C sort -t $'\t' -k 1,1n -k 2 comp > comp.sorted || fail "sort"
    got=()
    while IFS=$'\t' read -r i w; do got[i]+="$w "; done < comp.sorted
}
# the expected completions, then every command's options, in one complete_lines
lines=() want=()
expect() { lines+=("$1"); shift; want+=("$* "); }
expect "fsbench ma" matrix
expect "fsbench tiotest --js" --json
expect "fsbench fs_mark --engine io_" io_uring
expect "fsbench history tr" trend
expect "fsbench history trend read.latency_p9" read.latency_p90_ns read.latency_p99_9_ns read.latency_p99_ns
expect "fsbench list e" engines
cmds=$(fsb list) || fail "fsbench list"
for c in $cmds; do lines+=("fsbench $c -"); done
complete_lines "${lines[@]}"
for i in "${!want[@]}"; do
    [ "${got[i]}" = "${want[i]}" ] || fail "'${lines[i]}<TAB>': '${got[i]}', expected '${want[i]}'"
    ok "'${lines[i]}<TAB>' -> ${want[i]% }"
done

# every command's options: exactly the long and short options in its --help
i=${#want[@]}
for c in $cmds; do
    fsb "$c" --help > help 2>&1
    # the option column: "  -f, --size=MIB   text" (the names before the text), each name
    # without "=ARG" and a trailing "["
    declare -A help_opts=() comp_opts=()
    while IFS= read -r l; do
        [[ $l =~ ^\ +(-[^ ]+( --?[^ ]+)?)(\ .*)?$ ]] || continue
        read -r -a ws <<< "${BASH_REMATCH[1]//,/ }"
        for o in "${ws[@]}"; do
            o=${o%%=*} o=${o%[}
            [[ $o =~ ^--?[A-Za-z0-9] ]] && help_opts[$o]=1
        done
    done < help
    [ ${#help_opts[@]} != 0 ] || fail "$c --help: no options found"
    read -r -a ws <<< "${got[i]}"
    for o in "${ws[@]}"; do comp_opts[$o]=1; done
    missing=
    for o in "${!help_opts[@]}"; do [ -n "${comp_opts[$o]:-}" ] || missing+="$o "; done
    [ -z "$missing" ] || fail "$c: --help's options not completed: $missing"
    unset help_opts comp_opts
    i=$((i + 1))
done
ok "every command's --help options complete"

need_cmd zsh
zsh -n _fsbench || fail "_fsbench is not valid zsh"
grep -q '^#compdef fsbench' _fsbench || fail "_fsbench: no #compdef line"
grep -q 'tiotest) opts=(.* --json ' _fsbench || fail "_fsbench: tiotest's --json missing"
ok "the zsh completion parses"
