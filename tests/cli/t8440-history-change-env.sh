#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8440: the environment at a change. Two synthetic experiments (lib_matrix.sh) on the same kernel
# label and configuration hash whose runs differ in the target's mount options (rw,relatime ->
# rw,relatime,sync) and CPU governor (performance -> powersave), with a 30 % slowdown between
# them: history changes and history report name both differences at the change, and not the
# kernel. A database made before run_env (the table dropped, as an older fsbench made it) is
# still read, its change says the mount options were not recorded; import copies the rows.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
need_cmd sqlite3
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
printf 'a fs=ext4 1.0 0.05\n' | MX_T0=1790000000 MX_KERNEL=6.1.0 MX_MOUNT_OPTS=rw,relatime MX_GOVERNOR=performance \
    mx_make e1 base.json 21 5 ci
printf 'a fs=ext4 0.7 0.05\n' | MX_T0=1790100000 MX_KERNEL=6.1.0 MX_MOUNT_OPTS=rw,relatime,sync MX_GOVERNOR=powersave \
    mx_make e2 base.json 22 5 ci
for d in e1 e2; do fsb report --db h.db $d > /dev/null || fail "report $d"; done
[ "$(sqlite3 h.db "SELECT value FROM run_env WHERE key = 'mount_options' GROUP BY value ORDER BY value" | tr '\n' ' ')" = "rw,relatime rw,relatime,sync " ] ||
    fail "run_env: $(sqlite3 h.db 'SELECT * FROM run_env LIMIT 8')"

fsb history --db h.db changes write.rate_mib_per_s > ch.txt || fail "changes: exit $?: $(cat ch.txt)"
cat ch.txt
grep -q '^  between run 5 and run 6 of 10: ' ch.txt || fail "no change between the experiments"
grep -qx '  environment: mount options rw,relatime -> rw,relatime,sync; governor performance -> powersave (configuration: the same hash on both sides)' ch.txt ||
    fail "the environment at the change: $(grep environment ch.txt)"
ok "changes: the mount options and the governor named at the change, not the kernel"

fsb history --db h.db report -o rep write.rate_mib_per_s > /dev/null || fail "report: exit $?"
grep -q '^| write rate (primary) | .* | worse | mount options rw,relatime -> rw,relatime,sync; governor performance -> powersave | ' rep/report.md ||
    fail "report.md's change row: $(grep '^| write rate' rep/report.md)"
ok "report: the same differences in the change list"

# an older database: no run_env table; read, and said not recorded
cp h.db old.db
sqlite3 old.db 'DROP TABLE run_env;' || fail "sqlite3"
fsb history --db old.db changes write.rate_mib_per_s > old.txt || fail "changes on an older database: exit $?"
grep -qx '  environment: (mount options, governor: not recorded) (configuration: the same hash on both sides)' old.txt ||
    fail "older database: $(grep environment old.txt)"
fsb history --db old.db list > /dev/null || fail "list on an older database"
fsb history --db imp.db import h.db > /dev/null || fail "import: exit $?"
[ "$(sqlite3 imp.db 'SELECT COUNT(*) FROM run_env')" = "$(sqlite3 h.db 'SELECT COUNT(*) FROM run_env')" ] || fail "import did not copy run_env"
fsb history --db old.db import h.db > imp.txt || fail "import into an older database: exit $?"
sqlite3 old.db .tables | grep -q run_env && fail "the older database was altered"
ok "an older database without run_env: read, not altered; import copies the environment"
