#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3581: mdtest --engine io_uring --iodepth 8: the items' chains (mkdirat, openat-write-fsync-
# close, statx, openat-read-close, unlinkat) go to the ring up to 8 at a time (a submitting call
# hands over more than one item's chain), the same operations as psync's system calls (strace
# counts), totals exact (items x tasks x iterations, one and two tasks), the rates printed; a
# deeper tree keeps its order (a directory after its parent, removed before it); a depth
# larger than the work; -k and psync refuse a depth. Before, --iodepth above 1 was refused.
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd strace
need_cmd jq
D=$SCRATCH/d
ARGS=(-n 24 -z 1 -b 3 -w 100 -e 100 -y -i 2)

fsb mdtest -n 2 -d "$D" --engine io_uring > out 2> err; rc=$?
[ $rc = 3 ] && skip "io_uring cannot run here: $(cat err)"
[ $rc = 0 ] || fail "io_uring smoke run: exit $rc: $(cat err)"

counts() { grep -E "^[0-9]+ +(mkdirat|openat|statx|unlinkat)\([^\"]*\"[^\"]*test-dir" "$1" |
           sed -E 's/^[0-9]+ +([a-z]+)\(.*/\1/' | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'; }
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
strace -f -qq -o psync.trace -e trace=mkdirat,openat,statx,unlinkat \
    "$FSBENCH" mdtest "${ARGS[@]}" -d "$D" --json a.json > a.out 2> err || fail "psync: exit $?: $(cat err)"
strace -f -qq -o uring.trace -e trace=mkdirat,openat,statx,unlinkat,io_uring_enter \
    "$FSBENCH" mdtest "${ARGS[@]}" -d "$D" --engine io_uring --iodepth 8 --json b.json > b.out 2> err ||
    fail "io_uring --iodepth 8: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "files left in $D"
want=$(counts psync.trace)
[ "$want" = "mkdirat=56 openat=96 statx=96 unlinkat=104 " ] || fail "psync system calls: $want"
got=$(jq -r '[.operations[].engine_ops // {} | to_entries[]] | group_by(.key) |
             map(select(.[0].key | test("^(mkdirat|openat|statx|unlinkat)$")) | "\(.[0].key)=\(map(.value) | add)") |
             join(" ") + " "' b.json)
[ "$got" = "$want" ] || fail "io_uring ring requests '$got', psync system calls '$want'"
[ -z "$(counts uring.trace)" ] || fail "the io_uring run made the system calls itself: $(counts uring.trace)"
jq -e '.operations.file_create.engine_ops | .write == 48 and .fsync == 48 and .close == 48' b.json > /dev/null ||
    fail "create chains: $(jq -c '.operations.file_create.engine_ops' b.json)"
# an item's chain is at most 4 requests (openat, write, fsync, close): a call that hands over
# more holds several items
most=$(sed -nE 's/^[0-9]+ +io_uring_enter\([0-9]+, ([0-9]+),.*/\1/p' uring.trace | sort -n | tail -1)
[ "${most:-0}" -gt 4 ] || fail "no submitting call handed over more than one item (at most ${most:-0} requests)"
for f in a b; do
    jq -e '[.operations[] | .latency.count // 0] == [48,48,48,48,48,48,48,48,8,8] and
           ([.iterations[][] | .items] | . == [24,24,24,24,24,24,24,24,4,4,24,24,24,24,24,24,24,24,4,4])' \
        $f.json > /dev/null || fail "$f: counts $(jq -c '[.operations[] | .latency.count // 0]' $f.json)"
done
# the nine rates by one awk (it was one an operation): the first operation without one is named
op=$(awk 'BEGIN { n = split("Directory creation,Directory stat,Directory removal,File creation,File stat," \
                            "File read,File removal,Tree creation,Tree removal", ops, ",") }
          { for (i = 1; i <= n; i++) if (index($0, "   " ops[i] " ") == 1 && $(NF - 1) > 0) found[i] = 1 }
          END { for (i = 1; i <= n; i++) if (!found[i]) { print ops[i]; exit } }' b.out)
[ -z "$op" ] || fail "no rate for $op: $(cat b.out)"
ok "io_uring at depth 8: psync's operations ($want), several items per submit (up to $most requests), exact totals"

# a deeper tree (40 directories) at depth 16: made parent first, removed children first
fsb mdtest -n 780 -z 3 -b 3 -D -d "$D" --engine io_uring --iodepth 16 --json c.json > c.out 2> err ||
    fail "-z 3 -b 3 at depth 16: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "-z 3: files left in $D"
jq -e '.iterations[0] | .tree_create.items == 40 and .tree_remove.items == 40 and .dir_create.items == 760 and
       .dir_remove.items == 760' c.json > /dev/null || fail "-z 3: $(jq -c '[.iterations[0][] | .items]' c.json)"
ok "a tree of 40 directories at depth 16, in order"

# a depth larger than the work: 3 items, 3 directories, 64 in flight
fsb mdtest -n 3 -z 1 -b 2 -d "$D" --engine io_uring --iodepth 64 --json e.json > e.out 2> err ||
    fail "depth 64, 3 items: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "depth 64: files left in $D"
jq -e '[.iterations[0][] | .items] == [3,3,3,3,3,3,3,3,3,3]' e.json > /dev/null ||
    fail "depth 64: $(jq -c '[.iterations[0][] | .items]' e.json)"
ok "a depth larger than the work"

if [ -x "$FSBENCH_MPI" ] && command -v mpirun > /dev/null; then
    mpi 2 mdtest -n 60 -u -N 1 -z 1 -b 3 -i 2 -d "$D" --engine io_uring --iodepth 8 --json m.json > m.out 2> err ||
        fail "2 tasks at depth 8: exit $?: $(cat err)"
    [ ! -e "$D" ] || fail "2 tasks: files left in $D"
    jq -e '.tasks == 2 and ([.operations[] | .latency.count // 0] == [240,240,240,240,240,240,240,240,16,16])' \
        m.json > /dev/null || fail "2 tasks: $(jq -c '[.tasks, [.operations[] | .latency.count // 0]]' m.json)"
    ok "2 tasks x 2 iterations x 60 items at depth 8"
else
    echo "# fsbench-mpi or mpirun missing: the two-task part not run"
fi

fsb mdtest -n 4 -d "$D" --iodepth 8 > out 2> err; rc=$?
[ $rc = 2 ] && grep -q 'psync engine is synchronous' err || fail "psync --iodepth 8: exit $rc: $(cat err)"
fsb mdtest -n 4 -k -d "$D" --engine io_uring --iodepth 8 > out 2> err; rc=$?
[ $rc = 2 ] && grep -q '^fsbench mdtest: -k with --iodepth above 1' err || fail "-k --iodepth 8: exit $rc: $(cat err)"
[ ! -e "$D" ] || fail "a refused run made $D"
ok "psync and -k refuse a depth"
