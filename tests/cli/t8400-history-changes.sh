#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8400: history changes on synthetic experiments (lib_matrix.sh): two experiments on kernel
# labels 6.1.0 and 6.2.0 with cell a 30 % slower on 6.2.0 (cell b unchanged): changes finds
# the step in cell a at the right run (between the last 6.1.0 run and the first 6.2.0 one),
# decides it worse with its interval, names the kernels either side, and finds nothing in
# cell b; check --bisect exits 1 on it, 0 on a flat history, 125 with one earlier run only.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
echo "a fs=ext4 1.0 0.05
b fs=xfs 1.0 0.05" | MX_T0=1790000000 MX_KERNEL=6.1.0 mx_make k1 base.json 21 5 ci
printf 'a fs=ext4 0.7 0.05\nb fs=xfs 1.0 0.05\n' | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make k2 base.json 22 5 ci
for d in k1 k2; do fsb report --db h.db $d > /dev/null || fail "report $d"; done

fsb history --db h.db changes > ch.txt; rc=$?
cat ch.txt
[ $rc = 0 ] || fail "changes: exit $rc"
