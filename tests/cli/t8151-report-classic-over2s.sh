#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8151: the report's rebuilt classic tiotest tables print what the run printed. "% >2 sec" and
# "% >10 sec" are written for the classic table only (never compared); the report printed "nan"
# for them. Here: 0.00000 as the run printed it, and a value set in the run files (0.25 % of the
# write phase's ops over 2 s in every run of cell a) shown as 0.25000.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
mx_base tiotest base.json
printf 'a fs=ext4 1.0 0.03\nb fs=xfs 1.0 0.03\n' | mx_make m base.json 31 3 t
for f in m/runs/a/run-*.json; do
    jq '(.phases[] | select(.name == "write") | .latency.over_2s_pct) = 0.25' "$f" > x.json && mv x.json "$f" ||
        fail "jq $f"
done
expect_exit 0 fsb report --no-db m > /dev/null
grep -qi 'nan' <(sed -n '/Tiotest latency results/,/^`/p' m/report.md) &&
    fail "nan in the classic table: $(sed -n '/Tiotest latency results/,/^`/p' m/report.md)"
[ "$(grep -cE '^\| (Write|Random Write|Read|Random Read|Total) +\| +[0-9.]+ ms \| +[0-9.]+ ms \| +0\.00000 \| +0\.00000 \|$' m/report.md)" -ge 9 ] ||
    fail "0.00000 not printed: $(sed -n '/Tiotest latency results/,/^`/p' m/report.md)"
grep -qE '^\| Write +\| +[0-9.]+ ms \| +[0-9.]+ ms \| +0\.25000 \| +0\.00000 \|$' m/report.md ||
    fail "cell a's 0.25 % not shown: $(sed -n '/Tiotest latency results/,/^`/p' m/report.md)"
ok "classic tables: % >2 sec and % >10 sec as the runs printed them"
