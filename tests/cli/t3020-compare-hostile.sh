#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3020: hostile and broken result files: compare and plot exit 2 with one line on stderr that
# names the file, never crash (the fuzz corpus, plus what only a file system can give: a
# missing file, a directory, a FIFO, /dev/zero, a file over the size limit).
. "$(dirname "$0")/lib.sh"
C=$TESTS_DIR/fuzz/corpus
good=$C/valid_tiotest.json
cd "$SCRATCH" || fail "cd"
mkfifo fifo
# sparse: one byte over the reader's limit (result_read.h) costs no disk
truncate -s $((1024 * 1048576 + 1)) big.json
n=0
# the checks of each of the 85 runs are the shell's own (mapfile, [[ ]], ${f##*/}): basename, wc
# and grep were three more processes a run
for f in "$C"/*; do
    b=${f##*/}
    case $b in valid_*) continue ;; esac
    for cmd in "compare $good" "plot -o $SCRATCH/x.png"; do
        # shellcheck disable=SC2086
        timeout 20 "$FSBENCH" $cmd "$f" > out.txt 2> err.txt; rc=$?
        [ $rc = 2 ] || fail "$cmd $b: exit $rc, expected 2: $(cat err.txt)"
        mapfile -t lines < err.txt
        [ ${#lines[@]} = 1 ] || fail "$cmd $b: not one line: $(cat err.txt)"
        [[ ${lines[0]} == *"'$f'"* ]] || fail "$cmd $b: the message does not name the file: $(cat err.txt)"
        [ ! -s out.txt ] || fail "$cmd $b: wrote to stdout"
        n=$((n + 1))
    done
done
for f in missing.json . fifo /dev/zero big.json; do
    timeout 20 "$FSBENCH" compare "$good" "$f" > /dev/null 2> err.txt; rc=$?
    [ $rc = 2 ] || fail "compare $f: exit $rc: $(cat err.txt)"
    mapfile -t lines < err.txt
    [ ${#lines[@]} = 1 ] && [[ ${lines[0]} == *"'$f'"* ]] || fail "compare $f: $(cat err.txt)"
    [ "$f" != big.json ] || [[ ${lines[0]} == *'larger than 1024 MiB'* ]] || fail "compare $f: not refused for its size: $(cat err.txt)"
    n=$((n + 1))
done
[ ! -e x.png ] || fail "a plot was written from a broken result"
ok "$n hostile inputs rejected with one line naming the file"
