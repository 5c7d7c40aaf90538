#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t3550: psync and io_uring run the same operations on the same items (mkdirat, openat, statx,
# unlinkat on test-dir paths: strace of the psync run; the ring's requests of each kind under
# io_uring, and none of those system calls on a test-dir path), with the same layout and
# totals, and leave nothing behind.
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

# (LeakSanitizer cannot run under ptrace: the ASan build is traced without it)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
strace -f -qq -o psync.trace -e trace=mkdirat,openat,statx,unlinkat \
    "$FSBENCH" mdtest "${ARGS[@]}" -d "$D" --json a.json > a.out 2> err || fail "psync: exit $?: $(cat err)"
strace -f -qq -o uring.trace -e trace=mkdirat,openat,statx,unlinkat \
    "$FSBENCH" mdtest "${ARGS[@]}" -d "$D" --engine io_uring --json b.json > b.out 2> err ||
    fail "io_uring: exit $?: $(cat err)"
[ ! -e "$D" ] || fail "files left in $D"
want=$(counts psync.trace)
# 24 items over 4 directories, 2 iterations: 48 of each item op, 4 tree directories twice
[ "$want" = "mkdirat=56 openat=96 statx=96 unlinkat=104 " ] || fail "psync system calls: $want"
got=$(jq -r '[.operations[].engine_ops // {} | to_entries[]] | group_by(.key) |
             map(select(.[0].key | test("^(mkdirat|openat|statx|unlinkat)$")) | "\(.[0].key)=\(map(.value) | add)") |
             join(" ") + " "' b.json)
[ "$got" = "$want" ] || fail "io_uring ring requests '$got', psync system calls '$want'"
[ -z "$(counts uring.trace)" ] || fail "io_uring run made the system calls itself: $(counts uring.trace)"
jq -e '.operations.file_create.engine_ops | .write == 48 and .fsync == 48 and .close == 48' b.json > /dev/null ||
    fail "io_uring create chains: $(jq -c '.operations.file_create.engine_ops' b.json)"
jq -e '.operations.file_read.engine_ops | .read == 48 and .close == 48' b.json > /dev/null ||
    fail "io_uring read chains: $(jq -c '.operations.file_read.engine_ops' b.json)"
for f in a b; do
    jq -e '[.operations[] | .latency.count // 0] == [48,48,48,48,48,48,48,48,8,8]' $f.json > /dev/null ||
        fail "$f: latency counts $(jq -c '[.operations[] | .latency.count // 0]' $f.json)"
done
diff <(perl "$TESTS_DIR/cli/mdtest_mask.pl" a.out) <(perl "$TESTS_DIR/cli/mdtest_mask.pl" b.out | sed "s/'--engine' 'io_uring' //") ||
    fail "io_uring output layout differs from psync's"
ok "psync and io_uring: the same operations, the same totals"
