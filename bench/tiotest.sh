#!/usr/bin/env bash
# bench/tiotest.sh [FSBENCH]: fsbench tiotest against a bare loop of the same syscalls (and fio,
# psync, when installed), 1 thread, 4 KiB blocks, on tmpfs. Runs the contenders alternating, ROUNDS
# times each, and prints per phase the median ops/s of each and the ratios to the bare loop.
# A report, not a test: exits 0 whatever the numbers (non-zero only when something fails to run).
#
# Environment: ROUNDS (default 15), SIZE_MIB (file size, default 256), ROPS (random ops per random
# phase, default 200000), BS (default 4096), DIR (default /dev/shm), BUILD (default build),
# GOAL (minimum fsbench/bare ratio, default 0.95), RAW (file to keep the per-run numbers in).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-15}
SIZE_MIB=${SIZE_MIB:-256}
ROPS=${ROPS:-200000}
BS=${BS:-4096}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
GOAL=${GOAL:-0.95}
PHASES="write random_write read random_read"

die() { echo "bench/tiotest.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
command -v jq >/dev/null || die "needs jq"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"

mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_tiotest
if [ ! -x "$BARE" ] || [ "$ROOT/bench/bare_tiotest.c" -nt "$BARE" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$BARE" "$ROOT/bench/bare_tiotest.c" || die "cannot build $BARE"
fi
FIO=$(command -v fio || true)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX")
FIODIR=$(mktemp -d "$DIR/fsbench-bench-fio.XXXXXX")
trap 'rm -rf "$TMP" "$FIODIR"' EXIT
# run a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
FSBENCH_SRC=$FSBENCH FSBENCH=$TMP/fsbench
RAWF=$TMP/raw     # lines: contender phase ops_per_s

# fio: the same four phases as four jobs separated by stonewall, on one file of the same size.
# fallocate=none so the sequential write phase allocates tmpfs pages as the others do; random jobs
# draw with replacement (norandommap) and stop after exactly ROPS ops; end_fsync like tiotest.
cat > "$TMP/job.fio" <<FIOJOB
[global]
ioengine=psync
bs=$BS
size=${SIZE_MIB}m
filename=$FIODIR/fio.file
fallocate=none
invalidate=0
end_fsync=1
thread=1
[write]
rw=write
stonewall
[random_write]
rw=randwrite
io_size=1p
number_ios=$ROPS
norandommap=1
stonewall
[read]
rw=read
stonewall
[random_read]
rw=randread
io_size=1p
number_ios=$ROPS
norandommap=1
stonewall
FIOJOB

run_fsbench() {
    "$FSBENCH" tiotest --quiet -t 1 -f "$SIZE_MIB" -b "$BS" -r "$ROPS" -d "$DIR" --json "$TMP/fsb.json" \
        >/dev/null || die "fsbench tiotest failed"
    jq -r '.phases[] | "fsbench \(.name) \(.iops)"' "$TMP/fsb.json" >> "$RAWF"
}
run_bare() {
    "$BARE" "$DIR" "$SIZE_MIB" "$BS" "$ROPS" > "$TMP/bare.out" || die "bare loop failed"
    awk '{ print "bare", $1, $4 }' "$TMP/bare.out" >> "$RAWF"
}
run_fio() {
    "$FIO" --output-format=json "$TMP/job.fio" > "$TMP/fio.json" 2>"$TMP/fio.err" ||
        die "fio failed: $(head -3 "$TMP/fio.err")"
    rm -f "$FIODIR/fio.file"
    # ops over the job's runtime (ms), the fio way of computing IOPS
    jq -r '.jobs[] | (if .write.total_ios > 0 then .write else .read end) as $d
        | "fio \(.jobname) \($d.total_ios * 1000 / $d.runtime)"' "$TMP/fio.json" >> "$RAWF"
}

CONTENDERS="fsbench bare"
[ -n "$FIO" ] && CONTENDERS="$CONTENDERS fio"
echo "bench/tiotest.sh: $ROUNDS rounds of: $CONTENDERS (order rotates each round)"
echo "  fsbench: $FSBENCH_SRC (copy) tiotest -t 1 -f $SIZE_MIB -b $BS -r $ROPS -d $DIR --json FILE"
echo "  bare:    $BARE $DIR $SIZE_MIB $BS $ROPS"
[ -n "$FIO" ] && echo "  fio:     $FIO (psync, bs=$BS, size=${SIZE_MIB}m, write/randwrite/read/randread, number_ios=$ROPS)"
[ -z "$FIO" ] && echo "  fio:     not installed, column left empty"
set -- $CONTENDERS
for ((r = 0; r < ROUNDS; r++)); do
    printf '  round %d/%d:' $((r + 1)) "$ROUNDS"
    n=$#
    for ((k = 0; k < n; k++)); do
        c=${@:$(((r + k) % n + 1)):1}
        printf ' %s' "$c"
        "run_$c"
    done
    echo
done
[ -n "${RAW:-}" ] && cp "$RAWF" "$RAW"

median() { # contender phase
    awk -v c="$1" -v p="$2" '$1 == c && $2 == p { print $3 }' "$RAWF" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) print ""; else if (NR % 2) printf "%.0f\n", v[(NR + 1) / 2];
             else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
printf '%-13s | %17s | %14s | %14s | %12s | %8s | %s\n' phase "fsbench ops/s med" "bare med" \
    "fio med" "fsbench/bare" "fio/bare" "goal (>= $GOAL)"
printf -- '--------------+-------------------+----------------+----------------+--------------+----------+-----------\n'
for p in $PHASES; do
    f=$(median fsbench "$p") b=$(median bare "$p") o=$(median fio "$p")
    awk -v p="$p" -v f="$f" -v b="$b" -v o="$o" -v g="$GOAL" 'BEGIN {
        rf = f / b; ro = (o == "") ? "" : sprintf("%.3f", o / b)
        printf "%-13s | %17s | %14s | %14s | %12.3f | %8s | %s\n", p, f, b, (o == "" ? "-" : o),
            rf, (ro == "" ? "-" : ro), (rf >= g ? "GOAL MET" : "GOAL MISSED") }'
done
exit 0
