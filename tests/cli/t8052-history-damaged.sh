#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8052: the history database's path and content are outside input. A symbolic link anywhere on
# --db's path is refused before anything is made (report: exit 2, nothing written; history: exit
# 1), so nothing appears at the link's target. An existing database is never repaired: a dropped
# table, a dropped or retyped column, a missing unique key or index, a missing schema version is
# "damaged", named, exit 1, the file unchanged; another program's database is not a history; only
# a database without any table (a new one) gets the schema.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
need_cmd sqlite3
export HOME=$SCRATCH
mx_base tiotest base.json
mx_make m base.json 4 2 hist <<'C'
a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03
C

# a symbolic link on the path, the database missing or there
mkdir real && ln -s real link
expect_exit 2 fsb report --db link/sub/h.db m > out.txt 2> e.txt
grep -q "'link' is a symbolic link: refusing it on the history database's path" e.txt || fail "report: $(cat e.txt)"
[ -z "$(ls real)" ] || fail "created at the link's target: $(ls -R real)"
ls m | grep -qvx 'manifest.json\|runs' && fail "report wrote: $(ls m)"
expect_exit 2 fsb report --db "$SCRATCH/link/h.db" m 2> e.txt
expect_exit 1 fsb history --db link/h.db list 2> e.txt
grep -q "symbolic link" e.txt || fail "history: $(cat e.txt)"
[ -z "$(ls real)" ] || fail "history created at the link's target: $(ls real)"
fsb report --db real/h.db m > /dev/null 2> e.txt || fail "report into real/h.db: $(cat e.txt)"
expect_exit 1 fsb history --db link/h.db list 2> e.txt
grep -q "'link' is a symbolic link" e.txt || fail "history, the database there: $(cat e.txt)"
ln -s ../real deeper && mkdir -p d && mv deeper d/
expect_exit 1 fsb history --db d/deeper/h.db check 2> e.txt
grep -q "'d/deeper' is a symbolic link" e.txt || fail "a link further down: $(cat e.txt)"
ok "--db through a symbolic link: refused, nothing created at its target"

fsb history --db real/h.db list > /dev/null || fail "the good database"
# damaged SQL WHAT: the database after SQL is refused by every command, WHAT named, unchanged
# (the schema and the row count from one sqlite3, compared as text, not two and an md5sum; the
# messages read by the shell, not a grep each: ~10 processes less a case)
damaged() {
    local before e
    cp real/h.db x.db && sqlite3 x.db "$1" || fail "sqlite3 $1"
    before=$(sqlite3 x.db .schema 'SELECT COUNT(*) FROM runs' 2>&1)
    for c in list check "show hist" "trend write.rate_mib_per_s"; do
        expect_exit 1 fsb history --db x.db $c > out.txt 2> e.txt
        e=; IFS= read -r -d '' e < e.txt
        [[ $e == *"'x.db' is damaged: $2"* ]] || fail "history $c after '$1': $(cat e.txt)"
        [ ! -s out.txt ] || fail "history $c after '$1' printed: $(cat out.txt)"
    done
    expect_exit 1 fsb report --db x.db m > out.txt 2> e.txt
    e=; IFS= read -r -d '' e < e.txt
    [[ $e == *"'x.db' is damaged: $2"* ]] || fail "report after '$1': $(cat e.txt)"
    [ "$(sqlite3 x.db .schema 'SELECT COUNT(*) FROM runs' 2>&1)" = "$before" ] ||
        fail "'$1': the database was changed"
}
damaged 'DROP TABLE figures' "table 'figures' is missing"
damaged 'DROP TABLE meta' "table 'meta' is missing"
damaged 'DROP INDEX runs_by_config' "index 'runs_by_config' of table 'runs' is missing"
damaged 'ALTER TABLE runs DROP COLUMN used' "table 'runs' lacks its column 'used'"
damaged 'ALTER TABLE runs ADD COLUMN extra TEXT' "table 'runs' has a column 'extra' the schema lacks"
damaged "DELETE FROM meta WHERE key = 'schema_version'" "table 'meta' has no schema_version"
damaged 'DROP TABLE figures; CREATE TABLE figures(run_id INTEGER NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL,
         unit TEXT NOT NULL, better INTEGER NOT NULL, rate INTEGER NOT NULL, key_fig INTEGER NOT NULL,
         value TEXT NOT NULL, PRIMARY KEY(run_id, key)); CREATE INDEX figures_by_key ON figures(key)' \
    "table 'figures': column 'value' is not REAL NOT NULL"
damaged 'DROP TABLE experiments; CREATE TABLE experiments(id INTEGER PRIMARY KEY, name TEXT NOT NULL,
         host TEXT NOT NULL, first_started_at TEXT NOT NULL, kernel_release TEXT NOT NULL,
         fsbench_version TEXT NOT NULL, workload TEXT NOT NULL, dir TEXT NOT NULL, imported_at TEXT NOT NULL)' \
    "table 'experiments' lacks its unique key (name,host,first_started_at)"
ok "a damaged database: named, exit 1, never repaired"

sqlite3 other.db 'CREATE TABLE notes(t TEXT); INSERT INTO notes VALUES("mine")' || fail "sqlite3"
expect_exit 1 fsb report --db other.db m > /dev/null 2> e.txt
grep -q "'other.db' is not an fsbench history database" e.txt || fail "another program's database: $(cat e.txt)"
[ "$(sqlite3 other.db .tables)" = notes ] || fail "another program's database was changed"
: > empty.db
expect_exit 1 fsb history --db empty.db list 2> e.txt
grep -q "'empty.db' is an empty database" e.txt || fail "reading an empty database: $(cat e.txt)"
[ ! -s empty.db ] || fail "reading wrote into the empty database"
fsb report --db empty.db m > /dev/null 2> e.txt || fail "report into an empty database: $(cat e.txt)"
fsb history --db empty.db list | grep -q hist || fail "the empty database did not become a history"
ok "another program's database refused; an empty one becomes a new history"
