#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/uring.sh [FSBENCH]: fsbench tiotest --engine io_uring against a bare io_uring loop of the
# same requests (bench/bare_uring.c) and fio --ioengine=io_uring, 1 thread, 4 KiB reads on tmpfs,
# sequential and random, at depths 1, 8 and 32 (DEPTHS). Contenders alternate, the order
# rotating each round, ROUNDS times each; per phase and depth: the median ops/s, its ratio to the
# bare loop, the median CPU time per op (user + system over the phase, io-wq workers included)
# and its ratio. With the timed bare ring in the rotation (TIMED=1, the default) and depth 1 among
# DEPTHS, a line more decides fsbench's own time per request there: the time per request outside
# the request's timed latency, against the timed ring's (bench/README.md, "Own time per request").
# A report, not a test: exits 0 whatever the numbers.
#
# Environment: ROUNDS (default 21), SIZE_MIB (default 64), ROPS (random reads, default 100000),
# BS (default 4096), DIR (default /dev/shm), DEPTHS (default "1 8 32"), BUILD (default build),
# GOAL (fsbench ÷ bare ops/s, default 0.95), RAW (file to keep the per-run numbers in),
# DIRECT=1 (O_DIRECT reads: tiotest -X, fio direct=1; DIR then on a device, e.g. a loop mount),
# SPIN (µs the waiting thread looks for a completion before it sleeps: fsbench --io_uring-spin
# and the bare ring's BARE_SPIN_US alike; default: fsbench's own default, from its JSON; fio as is),
# BARE_TIMED=1 (the bare ring does fsbench's per-op timing too: what the measurement costs),
# BARE_REGRING=0 (the bare ring entered by its descriptor; by default it registers it, as
# fsbench's workers do: "+REGISTERED_RING" after the rings' flags in the output),
# TIMED (default 1: a fourth contender, "timed", the bare ring with BARE_TIMED=1 in the same
# rotation: fsbench's ratio to it is what fsbench costs beyond the two clock reads and the
# histogram records that per-op latency needs; TIMED=0 leaves it out), AA=1 (a fifth contender,
# "bare2": the bare ring again, in its own place in the rotation; its ×bare is an A/A ratio, how
# far two runs of the same loop land apart at each depth, and its spread is printed beside the
# goal line), PIN (a CPU list: every
# contender under taskset -c PIN; default none: pinned to one CPU, the io-wq worker that a
# buffered tmpfs read is punted to shares the submitter's CPU, which measures another wake-up
# path than the unpinned run; bench/README.md, "uring.sh pinned"), BARE_TICK_US (every bare
# ring gets a thread that only wakes this often: on a host where a vCPU's wake-up is dear, such
# a wake-up alone moved the unpinned ring's rate by -12 to +31 %; bench/README.md, "A process's
# periodic wake-up").
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-21}
SIZE_MIB=${SIZE_MIB:-64}
ROPS=${ROPS:-100000}
BS=${BS:-4096}
DIR=${DIR:-/dev/shm}
DEPTHS=${DEPTHS:-1 8 32}
BUILD=${BUILD:-$ROOT/build}
GOAL=${GOAL:-0.95}
PHASES="read random_read"
DIRECT=${DIRECT:-0}
TIMED=${TIMED:-1}
AA=${AA:-0}
PIN=${PIN-none}
[ "$PIN" = none ] && PIN=
ON=()
FSB_X= BARE_X= FIO_X=0
[ "$DIRECT" = 1 ] && FSB_X=-X BARE_X=direct FIO_X=1

die() { echo "bench/uring.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
command -v jq >/dev/null || die "needs jq"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"

case $TIMED in 0|1) ;; *) die "TIMED must be 0 or 1" ;; esac
case $AA in 0|1) ;; *) die "AA must be 0 or 1" ;; esac
if [ -n "$PIN" ]; then
    command -v taskset >/dev/null || die "PIN needs taskset"
    taskset -c "$PIN" true 2>/dev/null || die "PIN: cannot run on CPUs '$PIN'"
    ON=(taskset -c "$PIN")
fi
mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_uring
if [ ! -x "$BARE" ] || [ "$ROOT/bench/bare_uring.c" -nt "$BARE" ]; then
    ${CC:-cc} -O2 -Wall -Wextra -o "$BARE" "$ROOT/bench/bare_uring.c" -luring -lpthread || die "cannot build $BARE"
fi
FIO=$(command -v fio || true)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX")
FIODIR=$(mktemp -d "$DIR/fsbench-bench-fio.XXXXXX")
trap 'rm -rf "$TMP" "$FIODIR"' EXIT
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
FSBENCH_SRC=$FSBENCH FSBENCH=$TMP/fsbench
RAWF=$TMP/raw     # lines: contender depth phase ops_per_s cpu_s_per_op timed_ns_per_request ("-": untimed)
if [ -z "${SPIN:-}" ]; then
    "$FSBENCH" tiotest --quiet -t 1 -f 1 -r 1 -k 1 -d "$DIR" --engine io_uring --json "$TMP/spin.json" > /dev/null ||
        die "fsbench tiotest --engine io_uring cannot run"
    SPIN=$(jq -r '.config.engine_spin_us // 0' "$TMP/spin.json")
fi
[ "$SPIN" -ge 0 ] 2>/dev/null || die "SPIN must be a number of microseconds"

# fio: lay the file out with psync writes, then the two read jobs through io_uring at the depth
fio_job() {   # fio_job DEPTH
    cat <<FIOJOB
[global]
bs=$BS
size=${SIZE_MIB}m
filename=$FIODIR/fio.file
direct=$FIO_X
invalidate=0
end_fsync=1
thread=1
[write]
ioengine=psync
rw=write
[read]
ioengine=io_uring
iodepth=$1
rw=read
stonewall
[random_read]
ioengine=io_uring
iodepth=$1
rw=randread
io_size=1p
number_ios=$ROPS
norandommap=1
stonewall
FIOJOB
}

# fsbench: the write phase lays the file out (not reported), random write skipped (-k 1)
run_fsbench() {   # run_fsbench DEPTH
    "${ON[@]}" "$FSBENCH" tiotest --quiet -t 1 -f "$SIZE_MIB" -b "$BS" -r "$ROPS" -k 1 -d "$DIR" $FSB_X --engine io_uring \
        --io_uring-spin="$SPIN" --iodepth "$1" --json "$TMP/fsb.json" > /dev/null || die "fsbench tiotest failed"
    jq -r --arg d "$1" '.phases[] | select(.name | test("read")) |
        "fsbench \($d) \(.name) \(.iops) \((.cpu_usr_s + .cpu_sys_s) / .ops) \(.latency.mean_ns)"' "$TMP/fsb.json" >> "$RAWF"
    jq -r '(.config.engine_setup // [] | join("|")) + (if .config.engine_registered_ring == 1 then "+REGISTERED_RING" else "" end)' \
        "$TMP/fsb.json" > "$TMP/fsb.flags"
}
run_bare() {   # run_bare DEPTH [LABEL [TIMED]]
    BARE_TIMED=${3:-} BARE_SPIN_US=$SPIN "${ON[@]}" "$BARE" "$DIR" "$SIZE_MIB" "$BS" "$ROPS" "$1" $BARE_X > "$TMP/bare.out" ||
        die "bare loop failed"
    awk -v c="${2:-bare}" -v d="$1" '{ print c, d, $1, $4, $5 / 1e9 / $2, $7 }' "$TMP/bare.out" >> "$RAWF"
    awk 'NR == 1 { print $6 }' "$TMP/bare.out" > "$TMP/bare.flags"
}
run_timed() { run_bare "$1" timed 1; }
run_bare2() { run_bare "$1" bare2; }
run_fio() {
    fio_job "$1" > "$TMP/job.fio"
    "${ON[@]}" "$FIO" --output-format=json "$TMP/job.fio" > "$TMP/fio.json" 2>"$TMP/fio.err" ||
        die "fio failed: $(head -3 "$TMP/fio.err")"
    rm -f "$FIODIR/fio.file"
    jq -r --arg d "$1" '.jobs[] | select(.jobname != "write") | .read as $r
        | "fio \($d) \(.jobname) \($r.total_ios * 1000 / $r.runtime) \((.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000 / $r.total_ios) -"' \
        "$TMP/fio.json" >> "$RAWF"
}

CONTENDERS="fsbench bare"
[ "$TIMED" = 1 ] && CONTENDERS="$CONTENDERS timed"
[ "$AA" = 1 ] && CONTENDERS="$CONTENDERS bare2"
[ -n "$FIO" ] && CONTENDERS="$CONTENDERS fio"
echo "bench/uring.sh: $ROUNDS rounds of: $CONTENDERS at depths $DEPTHS (order rotates each round)${FSB_X:+, O_DIRECT}"
echo "  fsbench: $FSBENCH_SRC (copy) tiotest -t 1 -f $SIZE_MIB -b $BS -r $ROPS -k 1 -d $DIR --engine io_uring --io_uring-spin=$SPIN --iodepth N"
echo "  bare:    BARE_SPIN_US=$SPIN $BARE $DIR $SIZE_MIB $BS $ROPS N"
[ "$TIMED" = 1 ] && echo "  timed:   BARE_TIMED=1, the same bare ring timing each request as fsbench does (two TSC reads, histogram records)"
[ "$AA" = 1 ] && echo "  bare2:   the same bare ring again: its ×bare is this machine's noise at that cell (an A/A comparison)"
[ -n "$PIN" ] && echo "  every contender under taskset -c $PIN"
echo "  load at the start (uptime): $(uptime | sed 's/.*load average: //')"
[ -n "$FIO" ] && echo "  fio:     $FIO (io_uring, iodepth=N, bs=$BS, size=${SIZE_MIB}m, read/randread, number_ios=$ROPS)"
set -- $CONTENDERS
for ((r = 0; r < ROUNDS; r++)); do
    printf '  round %d/%d:' $((r + 1)) "$ROUNDS"
    n=$#
    for depth in $DEPTHS; do
        for ((k = 0; k < n; k++)); do
            c=${@:$(((r + k) % n + 1)):1}
            "run_$c" "$depth"
        done
        printf ' %s' "$depth"
    done
    echo
done
[ -n "${RAW:-}" ] && cp "$RAWF" "$RAW"

median() { # contender depth phase column
    awk -v c="$1" -v d="$2" -v p="$3" -v k="$4" '$1 == c && $2 == d && $3 == p { print $k }' "$RAWF" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) print ""; else if (NR % 2) printf "%.9g\n", v[(NR + 1) / 2];
             else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "rings (IORING_SETUP_*, +REGISTERED_RING: IORING_REGISTER_RING_FDS): fsbench $(cat "$TMP/fsb.flags"), bare $(cat "$TMP/bare.flags") (a ring per phase, made in its thread)"
echo "medians of $ROUNDS rounds; ×bare: ratio of medians (ops/s: higher is better; CPU per op: lower is better)"
printf '%-11s | %5s | %-9s | %10s | %7s | %8s | %10s | %8s | %s\n' phase depth contender "ops/s" "×bare" "×timed" \
    "CPU us/op" "CPU ×bare" "medians vs $GOAL ×bare, fio"
printf -- '------------+-------+-----------+------------+---------+----------+------------+----------+------------\n'
for p in $PHASES; do
    for depth in $DEPTHS; do
        b=$(median bare "$depth" "$p" 4) bc=$(median bare "$depth" "$p" 5) fi=$(median fio "$depth" "$p" 4)
        tm=$(median timed "$depth" "$p" 4)
        for c in $CONTENDERS; do
            f=$(median "$c" "$depth" "$p" 4) fc=$(median "$c" "$depth" "$p" 5)
            awk -v p="$p" -v d="$depth" -v c="$c" -v f="$f" -v b="$b" -v fc="$fc" -v bc="$bc" -v g="$GOAL" -v fi="$fi" \
                -v tm="$tm" 'BEGIN {
                goal = ""
                if (c == "fsbench") goal = ((f / b >= g) ? "above" : "below") (fi == "" ? "" : (f >= fi ? ", >= fio" : ", < fio"))
                printf "%-11s | %5s | %-9s | %10.0f | %7.3f | %8s | %10.3f | %8.3f | %s\n", p, d, c, f, f / b,
                    (tm > 0 ? sprintf("%.3f", f / tm) : "-"), fc * 1e6, (bc > 0 ? fc / bc : 0), goal }'
        done
    done
done
# per round: each contender's ops/s ÷ the bare ring's in the same round, median and quartiles;
# bare2's (AA=1) is how far the same loop lands from itself: a cell whose fsbench ratio sits
# inside that spread cannot tell fsbench from the floor at the goal's margin; the quartiles
# as tiotest.sh and fs_mark.sh take them
ratios() {   # ratios A B DEPTH PHASE: A's ops/s over B's, round by round
    awk -v a="$1" -v b="$2" -v d="$3" -v p="$4" '$2 == d && $3 == p && ($1 == a || $1 == b) { v[$1, ++n[$1]] = $4 }
        END { for (i = 1; i <= n[a] && i <= n[b]; i++) print v[a, i] / v[b, i] }' "$RAWF"
}
rounds_q() {   # rounds_q CONTENDER DEPTH PHASE: "median (q1-q3)" of the per-round ratios
    ratios "$1" bare "$2" "$3" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.3f (%.3f-%.3f)", v[int((NR + 1) / 2)], v[int(NR / 4) + 1], v[int(3 * NR / 4) + 1] }'
}
echo
echo "per round, ÷ the bare ring of the same round: median (quartiles)"
for p in $PHASES; do
    for depth in $DEPTHS; do
        line="  $(printf '%-11s %2s' "$p" "$depth"): fsbench $(rounds_q fsbench "$depth" "$p")"
        [ "$AA" = 1 ] && line="$line; bare2 (A/A) $(rounds_q bare2 "$depth" "$p")"
        [ -n "$FIO" ] && line="$line; fio $(rounds_q fio "$depth" "$p")"
        echo "$line"
    done
done
# the goal lines (make bench's summary collects every script's), decided on the same round's
# ratios (bench/goal.awk: met, MISSED, or undecided when the rounds' spread cannot tell), the
# ratio of medians beside them
for p in $PHASES; do
    for depth in $DEPTHS; do
        echo "$p/$depth $(median fsbench "$depth" "$p" 4) $(median bare "$depth" "$p" 4) $(median fio "$depth" "$p" 4) $(median timed "$depth" "$p" 4)"
    done
done > "$RAWF.goal"
# round_ratios C: "PHASE/DEPTH RATIO" of fsbench's ops/s over C's, round by round
round_ratios() {
    for p in $PHASES; do
        for depth in $DEPTHS; do
            ratios fsbench "$1" "$depth" "$p" | awk -v k="$p/$depth" '{ print k, $1 }'
        done
    done
}
echo
ex=$(awk '{ r = $2 / $3; if (NR == 1 || r < lo) { lo = r; lp = $1 } }
    END { printf "ratio of medians lowest %.3f, %s", lo, lp }' "$RAWF.goal")
round_ratios bare | awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v extra="$ex" \
    -v what="fsbench >= $GOAL x the bare ring at every depth, round by round"
# fsbench's own time per request at depth 1, where one request is in flight at a time: each
# time per request (1 / ops/s) splits into the request's timed latency (submission to the
# completion seen, the same clock in fsbench and the timed ring) and the rest, the program's
# own (reaping, recording, preparing the next). Per round: fsbench's ops/s had its requests
# taken as long as the timed ring's in the same round, over the timed ring's, T / (Tlat + F -
# Flat); the same rule and goal. Deeper queues overlap requests: no such split there.
if [ "$TIMED" = 1 ] && [[ " $DEPTHS " == *" 1 "* ]]; then
    for p in $PHASES; do
        awk -v p="$p" '$2 == 1 && $3 == p && $1 == "fsbench" && $6 + 0 > 0 { f[++nf] = 1e9 / $4; fl[nf] = $6 }
            $2 == 1 && $3 == p && $1 == "timed" && $6 + 0 > 0 { t[++nt] = 1e9 / $4; tl[nt] = $6 }
            END { for (i = 1; i <= nf && i <= nt; i++) print p "/1", t[i] / (tl[i] + f[i] - fl[i]) }' "$RAWF"
    done > "$RAWF.own"
    own_ns() {   # own_ns CONTENDER PHASE: the median of its depth-1 runs' own ns per request
        awk -v c="$1" -v p="$2" '$2 == 1 && $3 == p && $1 == c && $6 + 0 > 0 { print 1e9 / $4 - $6 }' "$RAWF" |
            sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
    }
    ex=$(for p in $PHASES; do echo "$(own_ns fsbench "$p") $(own_ns timed "$p")"; done |
        awk '{ s = s sprintf("%s%.0f / %.0f", NR > 1 ? ", " : "", $1, $2) }
            END { printf "own ns per request, fsbench / timed ring: %s", s }')
    awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v extra="$ex" \
        -v what="fsbench's own time per request at depth 1 (outside the requests it times) within $GOAL x the timed bare ring, round by round" \
        "$RAWF.own"
fi
# not a goal: what fsbench costs beyond the per-op timing that the bare ring's BARE_TIMED adds
[ "$TIMED" = 1 ] && awk '{ r = $2 / $5; if (NR == 1 || r < lo) { lo = r; lp = $1 } }
    END { printf "fsbench ÷ the timed bare ring (the same per-op timing): lowest %.3f (%s)\n", lo, lp }' "$RAWF.goal"
if [ -n "$FIO" ]; then
    ex=$(awk '{ r = $2 / $4; if (NR == 1 || r < lo) { lo = r; lp = $1 } }
        END { printf "ratio of medians lowest %.3f x fio, %s", lo, lp }' "$RAWF.goal")
    round_ratios fio | awk -f "$ROOT/bench/goal.awk" -v g=1 -v extra="$ex" \
        -v what="fsbench >= fio at every depth, round by round"
fi
exit 0
