#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8410: a fleet's history. Two machines' databases (hosts alpha and beta, synthetic experiments)
# imported into a third: every run once, however often imported (content hash), and a database
# imported into one that already holds its runs adds nothing; hosts kept apart by check and
# changes unless --all-hosts; export writes one JSON object a line per run (its content hash,
# host, kernel, figures), the same hash for the same run from either database, --since and
# --config select; a missing or damaged source is refused and adds nothing.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
mx_base tiotest base.json
echo 'a fs=ext4 1.0 0.05' | MX_T0=1790000000 MX_KERNEL=6.1.0 MX_HOST=alpha mx_make a1 base.json 41 4 ci
echo 'a fs=ext4 1.0 0.05' | MX_T0=1790100000 MX_KERNEL=6.2.0 MX_HOST=alpha mx_make a2 base.json 42 4 ci
echo 'a fs=ext4 0.6 0.05' | MX_T0=1790000000 MX_KERNEL=6.1.0 MX_HOST=beta mx_make b1 base.json 43 4 ci
for d in a1 a2; do fsb report --db alpha.db $d > /dev/null || fail "report $d"; done
fsb report --db beta.db b1 > /dev/null || fail "report b1"

fsb history --db fleet.db import alpha.db beta.db > imp.txt || fail "import: exit $?: $(cat imp.txt)"
grep -q '^alpha.db: 8 runs added (2 new experiments), 0 already there$' imp.txt || fail "import alpha: $(cat imp.txt)"
grep -q '^beta.db: 4 runs added (1 new experiment), 0 already there$' imp.txt || fail "import beta: $(cat imp.txt)"
fsb history --db fleet.db import alpha.db beta.db > imp2.txt || fail "import again: exit $?"
grep -q '^alpha.db: 0 runs added (0 new experiments), 8 already there$' imp2.txt || fail "import twice: $(cat imp2.txt)"
[ "$(fsb history --db fleet.db list | grep -c '^[0-9]')" = 3 ] || fail "list after import: $(fsb history --db fleet.db list)"
expect_exit 0 fsb history --db alpha.db import fleet.db > imp3.txt
grep -q '^fleet.db: 4 runs added (1 new experiment), 8 already there$' imp3.txt || fail "import back: $(cat imp3.txt)"
ok "import: each run once, however often imported"

# beta's runs (40 % slower, another host) are not alpha's earlier runs
fsb history --db fleet.db check --experiment ci --fail-if-worse 10 > chk.txt; rc=$?
[ $rc = 0 ] || fail "check, hosts apart: exit $rc: $(cat chk.txt)"
grep -q 'latest: 4 runs on 6.2.0; earlier: 4 runs on 6.1.0$' chk.txt || fail "check mixed the hosts: $(grep latest: chk.txt)"
fsb history --db fleet.db check --experiment ci --all-hosts > chk.txt || fail "check --all-hosts: exit $?"
grep -q 'latest: 4 runs on 6.2.0; earlier: 8 runs on 6.1.0$' chk.txt || fail "--all-hosts: $(grep latest: chk.txt)"
fsb history --db fleet.db changes write.rate_mib_per_s > ch.txt || fail "changes: exit $?"
grep -q '^2 series searched' ch.txt || fail "changes: hosts not apart: $(tail -2 ch.txt)"
fsb history --db fleet.db changes write.rate_mib_per_s --all-hosts > ch.txt || fail "changes --all-hosts: exit $?"
grep -q '^1 series searched' ch.txt || fail "changes --all-hosts: $(tail -2 ch.txt)"
ok "hosts kept apart unless --all-hosts"

fsb history --db fleet.db export -o all.jsonl 2> e.txt || fail "export: exit $?"
grep -q 'history: 12 runs exported' e.txt || fail "export count: $(cat e.txt)"
[ "$(wc -l < all.jsonl)" = 12 ] || fail "export lines: $(wc -l < all.jsonl)"
jq -e -s 'all(.[]; (.run_hash | test("^fnv1a64:[0-9a-f]{16}$")) and (.host == "alpha" or .host == "beta")
          and (.figures["write.rate_mib_per_s"].value > 0) and .figures["write.rate_mib_per_s"].unit == "MiB/s"
          and (.kernel_release | test("^6\\.[12]\\.0$")) and .config_hash == "h-a")
          and ([.[].run_hash] | unique | length) == 12' all.jsonl > /dev/null || fail "export content: $(head -c 600 all.jsonl)"
fsb history --db alpha.db export > a.jsonl 2> /dev/null || fail "export alpha"
[ "$(jq -r .run_hash a.jsonl | sort | md5sum)" = "$(jq -r .run_hash all.jsonl | sort | md5sum)" ] ||
    fail "the same runs hash differently in two databases"
[ "$(fsb history --db fleet.db export --since 2026-09-22 2> /dev/null | wc -l)" = 4 ] || fail "export --since"
expect_exit 3 fsb history --db fleet.db export --config nosuch > none.jsonl 2> /dev/null
[ ! -s none.jsonl ] || fail "export of nothing wrote something"
# every line valid against doc/schema/history-export.schema.json (issue 23: every JSON fsbench
# writes has its schema); a line missing its hash is not
if have_jsonschema; then
    schema_valid --lines "$TESTS_DIR/../doc/schema/history-export.schema.json" all.jsonl
    head -n 1 all.jsonl | jq -c 'del(.run_hash)' > bad.jsonl
    schema_invalid --lines "$TESTS_DIR/../doc/schema/history-export.schema.json" bad.jsonl   # without its hash
    schema_checks "export lines against their schema"
else
    SCHEMA_SKIP=1
fi
ok "export: JSON Lines with content hashes, the same from either database"

printf 'not a database' > junk.db
cp fleet.db before.db
expect_exit 1 fsb history --db fleet.db import junk.db 2> e.txt
expect_exit 1 fsb history --db fleet.db import nosuch.db 2> e.txt
grep -q "import 'nosuch.db'" e.txt || fail "missing source: $(cat e.txt)"
cmp -s fleet.db before.db || fail "a refused import changed the database"
expect_exit 2 fsb history --db fleet.db import
ok "a bad source refused, nothing added"
[ -z "${SCHEMA_SKIP:-}" ] || skip "no python3 jsonschema module: the export lines were not validated against their schema"
