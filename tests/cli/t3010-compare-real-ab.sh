#!/bin/bash
# t3010: a real A/B, 3 runs each, on tmpfs: B moves the same bytes in 512-byte blocks instead
# of 64 KiB (8x the syscalls per byte, a reliably slower write rate): compare marks the write
# rate significantly worse; A against a repeat of A's configuration is not all "worse".
. "$(dirname "$0")/lib.sh"
dir=/dev/shm
[ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
mkdir -p "$dir/fsbench-t3010.$$" && trap 'rm -rf "$dir/fsbench-t3010.$$"; _lib_cleanup' EXIT
d=$dir/fsbench-t3010.$$
cd "$SCRATCH" || fail "cd"
if fsb tiotest --help | grep -q -- '--repeat'; then
    fsb tiotest -t 2 -f 16 -r 2000 -b 65536 -d "$d" --repeat 3 --label A --json a.json > /dev/null || fail "run A"
    fsb tiotest -t 2 -f 16 -r 2000 -b 512 -d "$d" --repeat 3 --label B --json b.json > /dev/null || fail "run B"
else
    # no --repeat in this build: three single runs joined into runs[] by jq
    need_cmd jq
    for x in A B; do
        bs=65536; [ $x = B ] && bs=512
        for i in 1 2 3; do
            fsb tiotest -t 2 -f 16 -r 2000 -b $bs -d "$d" --json $x$i.json > /dev/null || fail "run $x$i"
        done
        jq -s --arg l $x '.[0] + {label: $l, runs: [.[] | {complete, stop_reason, error, phases, total_latency}]}
            | del(.phases, .total_latency)' $x[123].json > $(echo $x | tr AB ab).json
    done
fi
fsb compare a.json b.json > out.txt; rc=$?
cat out.txt
[ $rc = 0 ] || fail "compare exit $rc"
grep -E '^write rate +MiB/s .* -[0-9.]+% worse \*+' out.txt || fail "B's write rate is not marked significantly worse"
grep -E '^  config\.block_size_bytes +65536 +512' out.txt || fail "block size not listed as a difference"
expect_exit 1 fsb compare --fail-if-worse 20 a.json b.json > /dev/null
ok "512-byte blocks are significantly slower, and the gate trips"
