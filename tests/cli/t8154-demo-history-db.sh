#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8154: make demo's matrix records its runs in a history database under the demo's directory
# (build/demo/history.db), never the user's $XDG_DATA_HOME/fsbench/history.db. scripts/demo.sh
# runs against a stand-in fsbench that logs its command lines (and makes the matrix directory
# the script lists): every matrix command, run or printed, names --db under the demo directory.
. "$(dirname "$0")/lib.sh"
need_root
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
cat > stub <<'STUB'
#!/bin/bash
printf '%s\n' "$*" >> "$STUB_LOG"
if [ "$1" = matrix ]; then
    while [ $# -gt 0 ]; do [ "$1" = -o ] && mkdir -p "$2/runs"; shift; done
fi
exit 0
STUB
chmod +x stub
STUB_LOG=$SCRATCH/log sh "$TESTS_DIR/../scripts/demo.sh" "$SCRATCH/stub" "$SCRATCH/demo" > out.txt 2>&1 ||
    fail "demo.sh: exit $?: $(tail -5 out.txt)"
grep -q '^matrix ' log || fail "the demo ran no matrix: $(cat log)"
grep '^matrix ' log | grep -qv -- "--db $SCRATCH/demo/history.db" && fail "a matrix without the demo's --db: $(grep '^matrix ' log)"
[ "$(grep -c "matrix .*--db $SCRATCH/demo/history.db" out.txt)" -ge 3 ] ||
    fail "the commands the demo prints do not name its database: $(grep matrix out.txt)"
[ ! -e "$XDG_DATA_HOME" ] || fail "the user's data directory was touched"
ok "make demo: the history database under the demo's directory"
