#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tiotest.sh [FSBENCH [BASELINE]]: fsbench tiotest against a bare loop of the same syscalls
# (and fio, psync, when installed), 1 thread, 4 KiB blocks, on tmpfs. Two floors, one program
# (bench/bare_tiotest.c): "bare" times each op the cheapest correct way, with fsbench's own latency
# clock (the TSC when fsbench's check takes it), "untimed" (BARE_UNTIMED=1) issues the same
# syscalls with no clock read at all. Runs the contenders alternating, ROUNDS times each, and
# prints per phase the median ops/s of each, its ratio to both floors, and the median CPU time per
# op (user + system, over the phase) and its ratio to the timed floor's: CPU time is what the
# process ran, so a busy host's steal time and other tenants, which scatter the rates, hardly
# move it. BASELINE: a second fsbench binary (e.g. main's) run
# in the same rotation, for before/after tables.
# A report, not a test: exits 0 whatever the numbers (non-zero only when something fails to run).
#
# fio does the same work as tiotest's phases: in particular its file is laid out with
# fallocate=truncate, sparse at its full size before the sequential write phase, as tiotest 0.4.x
# leaves it (open, ftruncate to the whole size, then the pwrites fill the holes). With
# fallocate=none (this script until 2026-12-02) fio's write phase extended an empty file instead,
# other work than tiotest's (bench/README.md, "The sequential write phase against fio").
#
# Environment: ROUNDS (default 21), SIZE_MIB (file size, default 256), ROPS (random ops per random
# phase, default 200000), BS (default 4096), DIR (default /dev/shm), BUILD (default build),
# GOAL (minimum fsbench/bare ratio, the bare loop timing each op, default 0.97), RAW (file to keep
# the per-run numbers in), PHASES (the phases to run, default "write random_write read
# random_read": fsbench skips the others with -k, the bare loop with BARE_PHASES, fio has no job
# for them), PIN (a CPU list: every contender runs under taskset -c PIN, the same for all;
# default the first CPU this script may run on, PIN=none for none: the two vCPUs of the test
# machine differ by 25-30 % in speed, and unpinned the contenders land on either, see
# bench/README.md "Which CPU"),
# FIO_EXTEND=1 (one more contender, fio_ext: fio with fallocate=none, the write phase extending an
# empty file, run in the same rotation to show what that difference is worth),
# AA=1 (one more contender, bare2: the bare loop again, in its own place in the rotation; its
# ratio to bare goes through the goal's rule too, printed as "A/A, not a goal": how far the same
# loop lands from itself, what these rounds can decide at the goal's margin),
# CONTENDERS (a subset of the contenders above, by default all that apply; fsbench and bare must
# be in it: e.g. CONTENDERS="fsbench bare" for many short rounds of the goal's two alone, where
# a 3 % margin needs more rounds than the host's spread allows in 21),
# BENCH_SMOKE=1 (a run of the script itself, as its test makes: ROUNDS may be below 5, down to 1;
# figures from so few rounds mean nothing, and the first line says so).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
BASELINE=${2:-}
case $BASELINE in /*|"") ;; *) BASELINE=$PWD/$BASELINE ;; esac
ROUNDS=${ROUNDS:-21}
SIZE_MIB=${SIZE_MIB:-256}
ROPS=${ROPS:-200000}
BS=${BS:-4096}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
GOAL=${GOAL:-0.97}
ALL_PHASES="write random_write read random_read"
PHASES=${PHASES:-$ALL_PHASES}
PIN=${PIN-auto}
[ "$PIN" = none ] && PIN=
[ "$PIN" = auto ] && PIN=$(awk '/^Cpus_allowed_list:/ { split($2, c, /[,-]/); print c[1] }' /proc/self/status)
FIO_EXTEND=${FIO_EXTEND:-}
AA=${AA:-0}

die() { echo "bench/tiotest.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || die "no baseline binary at $BASELINE"
command -v jq >/dev/null || die "needs jq"
MIN_ROUNDS=5
[ -n "${BENCH_SMOKE:-}" ] && MIN_ROUNDS=1
[ "$ROUNDS" -ge "$MIN_ROUNDS" ] 2>/dev/null || die "ROUNDS must be at least $MIN_ROUNDS"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"
case $AA in 0|1) ;; *) die "AA must be 0 or 1" ;; esac
SKIP=""   # fsbench's -k for the phases not in PHASES
k=0
for p in $ALL_PHASES; do
    case " $PHASES " in *" $p "*) ;; *) SKIP="$SKIP -k $k" ;; esac
    k=$((k + 1))
done
for p in $PHASES; do
    case " $ALL_PHASES " in *" $p "*) ;; *) die "PHASES: no phase '$p' ($ALL_PHASES)" ;; esac
done
ON=()      # the prefix every contender runs under
if [ -n "$PIN" ]; then
    command -v taskset >/dev/null || die "PIN needs taskset"
    taskset -c "$PIN" true 2>/dev/null || die "PIN: cannot run on CPUs '$PIN'"
    ON=(taskset -c "$PIN")
fi

FIO=$(command -v fio || true)
ALL_CONTENDERS="fsbench bare untimed"
[ -n "$BASELINE" ] && ALL_CONTENDERS="fsbench baseline bare untimed"
[ -n "$FIO" ] && ALL_CONTENDERS="$ALL_CONTENDERS fio"
[ -n "$FIO" ] && [ -n "$FIO_EXTEND" ] && ALL_CONTENDERS="$ALL_CONTENDERS fio_ext"
[ "$AA" = 1 ] && ALL_CONTENDERS="$ALL_CONTENDERS bare2"
CONTENDERS=${CONTENDERS:-$ALL_CONTENDERS}
for c in $CONTENDERS; do
    case " $ALL_CONTENDERS " in *" $c "*) ;; *) die "CONTENDERS: no contender '$c' here ($ALL_CONTENDERS)" ;; esac
done
case " $CONTENDERS " in *" fsbench "*) ;; *) die "CONTENDERS: fsbench must be one" ;; esac
case " $CONTENDERS " in *" bare "*) ;; *) die "CONTENDERS: bare must be one (the goal's floor)" ;; esac
has() { case " $CONTENDERS " in *" $1 "*) return 0 ;; esac; return 1; }

mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_tiotest
# linked with fsbench's latency clock, so the bare loop decides TSC or clock_gettime as fsbench does
BARE_SRC="$ROOT/bench/bare_tiotest.c $ROOT/src/core/clock.c"
if [ ! -x "$BARE" ] || [ -n "$(find $BARE_SRC "$ROOT/src/core/clock.h" -newer "$BARE")" ]; then
    ${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -iquote "$ROOT/src" -Wall -Wextra -o "$BARE" $BARE_SRC ||
        die "cannot build $BARE"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench.XXXXXX")
FIODIR=$(mktemp -d "$DIR/fsbench-bench-fio.XXXXXX")
trap 'rm -rf "$TMP" "$FIODIR"' EXIT
# run a private copy: one binary for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" || die "cannot copy $FSBENCH"
FSBENCH_SRC=$FSBENCH FSBENCH=$TMP/fsbench
[ -n "$BASELINE" ] && { cp "$BASELINE" "$TMP/baseline" || die "cannot copy $BASELINE"; }
RAWF=$TMP/raw     # lines: contender phase ops_per_s cpu_s_per_op timed_ns_per_op ("-": no per-op timing)

# fio: the same phases as jobs separated by stonewall, on one file of the same size.
# fallocate=truncate: fio lays the file out with one ftruncate to its whole size, so the
# sequential write phase fills the holes of a sparse file of the final size, as tiotest's does
# (0.4.x: open, ftruncate, pwrite; fsbench creates the file so at setup and repeats the
# ftruncate at each phase's open). fio_ext (FIO_EXTEND=1) is the same with fallocate=none: an
# empty file each write extends. Random jobs draw with replacement (norandommap) and stop after
# exactly ROPS ops; end_fsync like tiotest.
fio_job() {   # fio_job FALLOCATE
    printf '[global]\nioengine=psync\nbs=%s\nsize=%sm\nfilename=%s\nfallocate=%s\n' \
        "$BS" "$SIZE_MIB" "$FIODIR/fio.file" "$1"
    printf 'invalidate=0\nend_fsync=1\nthread=1\n'
    for p in $PHASES; do
        printf '[%s]\nstonewall\n' "$p"
        case $p in
        write) echo "rw=write" ;;
        read) echo "rw=read" ;;
        random_write) printf 'rw=randwrite\nio_size=1p\nnumber_ios=%s\nnorandommap=1\n' "$ROPS" ;;
        random_read) printf 'rw=randread\nio_size=1p\nnumber_ios=%s\nnorandommap=1\n' "$ROPS" ;;
        esac
    done
}
fio_job truncate > "$TMP/job.fio"
fio_job none > "$TMP/job_ext.fio"

# fsbench's phase CPU is the process's over the phase window (CLOCK_PROCESS_CPUTIME_ID: the
# worker, and the reporter thread that samples it); the bare loop's is its process's over the
# same span, open to close
run_tiotest() {   # run_tiotest BINARY LABEL
    "${ON[@]}" "$1" tiotest --quiet -t 1 -f "$SIZE_MIB" -b "$BS" -r "$ROPS" $SKIP -d "$DIR" \
        --json "$TMP/fsb.json" >/dev/null || die "$2 tiotest failed"
    # one jq (~50 ms of CPU a start): the clock, then a raw line per phase
    local lines
    mapfile -t lines < <(jq -r --arg c "$2" '.environment.latency_clock,
        (.phases[] | "\($c) \(.name) \(.iops) \((.cpu_usr_s + .cpu_sys_s) / .ops) \(.latency.mean_ns)")' "$TMP/fsb.json")
    [ ${#lines[@]} -ge 2 ] || die "$2: no phases in its JSON"
    echo "${lines[0]}" > "$TMP/$2.clock"
    printf '%s\n' "${lines[@]:1}" >> "$RAWF"
}
run_fsbench() { run_tiotest "$FSBENCH" fsbench; }
run_baseline() { run_tiotest "$TMP/baseline" baseline; }
# the bare loop's lines: "PHASE OPS WALL_NS OPS_PER_S CPU_NS LATENCY_SUM_NS", after the clock's
run_bare_as() {   # run_bare_as LABEL: the first line names the latency clock, then one per phase
    BARE_PHASES=$PHASES "${ON[@]}" "$BARE" "$DIR" "$SIZE_MIB" "$BS" "$ROPS" > "$TMP/bare.out" ||
        die "bare loop failed"
    local clock
    read -r _ clock _ < "$TMP/bare.out"
    echo "$clock" > "$TMP/bare.clock"
    awk -v c="$1" 'NR > 1 { print c, $1, $4, $5 / 1e9 / $2, $6 / $2 }' "$TMP/bare.out" >> "$RAWF"
}
run_bare() { run_bare_as bare; }
run_bare2() { run_bare_as bare2; }
run_untimed() {
    BARE_UNTIMED=1 BARE_PHASES=$PHASES "${ON[@]}" "$BARE" "$DIR" "$SIZE_MIB" "$BS" "$ROPS" \
        > "$TMP/untimed.out" || die "untimed bare loop failed"
    awk 'NR > 1 { print "untimed", $1, $4, $5 / 1e9 / $2, "-" }' "$TMP/untimed.out" >> "$RAWF"
}
run_fio_job() {   # run_fio_job JOBFILE LABEL
    "${ON[@]}" "$FIO" --output-format=json "$1" > "$TMP/fio.json" 2>"$TMP/fio.err" ||
        die "$2 failed: $(head -3 "$TMP/fio.err")"
    rm -f "$FIODIR/fio.file"
    # ops over the job's runtime (ms), the fio way of computing IOPS; its CPU: usr_cpu and
    # sys_cpu are % of the job's runtime
    jq -r '.jobs[] | (if .write.total_ios > 0 then .write else .read end) as $d
        | "\($c) \(.jobname) \($d.total_ios * 1000 / $d.runtime) \((.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000 / $d.total_ios) -"' \
        --arg c "$2" "$TMP/fio.json" >> "$RAWF"
}
run_fio() { run_fio_job "$TMP/job.fio" fio; }
run_fio_ext() { run_fio_job "$TMP/job_ext.fio" fio_ext; }

echo "bench/tiotest.sh: $ROUNDS rounds of: $CONTENDERS (order rotates each round), phases: $PHASES${BENCH_SMOKE:+ (BENCH_SMOKE: a test of the script, its figures mean nothing)}"
echo "  load at the start (uptime): $(uptime | sed 's/.*load average: //')${PIN:+, every contender under taskset -c $PIN}"
echo "  fsbench: $FSBENCH_SRC (copy) tiotest -t 1 -f $SIZE_MIB -b $BS -r $ROPS$SKIP -d $DIR --json FILE"
[ -n "$BASELINE" ] && echo "  baseline: $BASELINE (copy), the same command"
echo "  bare:    $BARE $DIR $SIZE_MIB $BS $ROPS (each op timed, fsbench's latency clock)"
has bare2 && echo "  bare2:   the same bare loop again: its ×bare is this host's own spread (an A/A comparison)"
has untimed && echo "  untimed: BARE_UNTIMED=1 $BARE $DIR $SIZE_MIB $BS $ROPS (no clock read per op)"
has fio && echo "  fio:     $FIO (psync, bs=$BS, size=${SIZE_MIB}m, fallocate=truncate, one job per phase, number_ios=$ROPS)"
has fio_ext && echo "  fio_ext: the same with fallocate=none (the write phase extends an empty file)"
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
echo "  load at the end (uptime): $(uptime | sed 's/.*load average: //')"

median() { # contender phase column
    awk -v c="$1" -v p="$2" -v k="$3" '$1 == c && $2 == p { print $k }' "$RAWF" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) print ""; else if (NR % 2) printf "%.9g\n", v[(NR + 1) / 2];
             else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "latency clock (the last run of each): fsbench $(cat "$TMP/fsbench.clock"), bare $(cat "$TMP/bare.clock")$(has untimed && echo ", untimed none")"
echo "medians of $ROUNDS rounds; ×bare: ratio of medians to the bare loop that times each op, ×untimed: to"
echo "the one that does not (ops/s: higher is better; CPU per op: lower is better)"
printf '%-13s | %-9s | %12s | %7s | %8s | %12s | %8s | %s\n' phase contender "ops/s" "×bare" "×untimed" \
    "CPU us/op" "CPU ×bare" "median vs $GOAL ×bare"
printf -- '--------------+-----------+--------------+---------+----------+--------------+----------+------------\n'
for p in $PHASES; do
    b=$(median bare "$p" 3) bc=$(median bare "$p" 4) u=$(median untimed "$p" 3)
    for c in $CONTENDERS; do
        f=$(median "$c" "$p" 3) fc=$(median "$c" "$p" 4)
        awk -v p="$p" -v c="$c" -v f="$f" -v b="$b" -v u="$u" -v fc="$fc" -v bc="$bc" -v g="$GOAL" 'BEGIN {
            goal = (c == "fsbench" || c == "baseline") ? ((f / b >= g) ? "above" : "below") : ""
            printf "%-13s | %-9s | %12.0f | %7.3f | %8s | %12.3f | %8.3f | %s\n", p, c, f, f / b,
                (u > 0 ? sprintf("%.3f", f / u) : "-"),
                fc * 1e6, (bc > 0 ? fc / bc : 0), goal }'
    done
done
# the goal lines (make bench's summary collects every script's), decided on the same round's
# ratios (bench/goal.awk: met, MISSED, or undecided when the rounds' spread cannot tell), the
# ratio of medians beside them
for p in $PHASES; do
    echo "$p $(median fsbench "$p" 3) $(median bare "$p" 3) $(median fio "$p" 3) $(median untimed "$p" 3)"
done > "$TMP/goal"
# pairs C P [A]: A (default fsbench) over C in phase P, round by round: "OPS_RATIO CPU_PER_OP_RATIO"
pairs() {
    awk -v p="$2" -v c="$1" -v a="${3:-fsbench}" '$2 == p && $1 == a { f[++nf] = $3; fc[nf] = $4 }
        $2 == p && $1 == c { b[++nb] = $3; bc[nb] = $4 }
        END { for (i = 1; i <= nf && i <= nb; i++) print f[i] / b[i], fc[i] / bc[i] }' "$RAWF"
}
# round_ratios C [A]: "PHASE RATIO" of A's (default fsbench's) ops/s over C's, round by round
round_ratios() {
    for p in $PHASES; do
        pairs "$1" "$p" "${2:-fsbench}" | awk -v p="$p" '{ print p, $1 }'
    done
}
echo
# the untimed floor's ratios beside the goal, not a goal: no tool that records each op's
# latency can reach it
ex=$(awk '{ r = $2 / $3; if (NR == 1 || r < lo) { lo = r; lp = $1 }
        if ($5 > 0) un = un sprintf("%s%.3f", un != "" ? " / " : "", $2 / $5) }
    END { printf "ratio of medians lowest %.3f, %s", lo, lp; if (un != "") printf "; x untimed bare %s", un }' "$TMP/goal")
round_ratios bare | awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v extra="$ex" \
    -v what="fsbench >= $GOAL x bare (timing each op) ops/s in every phase, round by round"
if has fio; then
    ex=$(awk '{ r = $2 / $4; if (NR == 1 || r < lo) { lo = r; lp = $1 } }
        END { printf "ratio of medians lowest %.3f x fio, %s", lo, lp }' "$TMP/goal")
    round_ratios fio | awk -f "$ROOT/bench/goal.awk" -v g=1 -v extra="$ex" \
        -v what="fsbench >= fio ops/s in every phase, round by round"
fi
# fsbench's own cost per op, apart from its syscalls' time: each run times every syscall (the
# same latency clock in both), so its time per op splits into the syscalls' (the mean timed
# latency) and its own (the rest: the loop, the clock reads' other half, the histogram, the
# phase's open and fsync). The syscalls' part is what moves from run to run on a shared host
# (the kernel's copy of the same bytes, the pages it lands on; AA=1 shows the bare loop against
# itself), the own part hardly does. Per round: fsbench's ops/s had its syscalls taken as long
# as the bare loop's in the same round, over the bare loop's: B / (Bsys + F - Fsys), times
# per op. The same rule and goal as the ops/s line above; it decides what fsbench's code costs
# where the ops/s line cannot.
own_ratios() {
    for p in $PHASES; do
        awk -v p="$p" '$2 == p && $1 == "fsbench" && $5 != "-" { f[++nf] = 1e9 / $3; fs[nf] = $5 }
            $2 == p && $1 == "bare" { b[++nb] = 1e9 / $3; bs[nb] = $5 }
            END { for (i = 1; i <= nf && i <= nb; i++) print p, b[i] / (bs[i] + f[i] - fs[i]) }' "$RAWF"
    done
}
own_ns() {   # own_ns CONTENDER PHASE: the median of its runs' own ns per op
    awk -v c="$1" -v p="$2" '$2 == p && $1 == c && $5 != "-" { print 1e9 / $3 - $5 }' "$RAWF" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
ex=$(for p in $PHASES; do echo "$(own_ns fsbench "$p") $(own_ns bare "$p")"; done |
    awk '{ s = s sprintf("%s%.1f / %.1f", NR > 1 ? ", " : "", $1, $2) } END { printf "own ns per op, fsbench / bare: %s", s }')
own_ratios | awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v extra="$ex" \
    -v what="fsbench's own time per op (outside the syscalls it times) within $GOAL x bare in every phase, round by round"
# AA=1: the bare loop against itself, the same rule: what these rounds can decide at all
if has bare2; then
    round_ratios bare bare2 | awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v head="A/A, not a goal" \
        -v what="bare2 (the same bare loop) >= $GOAL x bare in every phase, round by round"
fi
# the same round's runs side by side: what moves both (the host, a slow spell) cancels out
# better than in a ratio of medians taken over different minutes
echo
echo "fsbench ÷ each other contender, round by round (median and interquartile range of $ROUNDS ratios):"
for c in $CONTENDERS; do
    [ "$c" = fsbench ] && continue
    for p in $PHASES; do
        pairs "$c" "$p" > "$TMP/pairs"
        for k in 1 2; do
            cut -d' ' -f$k "$TMP/pairs" | sort -g | awk '{ v[NR] = $1 }
                END { printf "%.3f (%.3f-%.3f)\n", v[int((NR + 1) / 2)], v[int(NR / 4) + 1], v[int(3 * NR / 4) + 1] }'
        done | paste -sd' ' | awk -v p="$p" -v c="$c" '{ printf "  ÷ %-8s %-13s ops/s %s   CPU/op %s\n", c, p, $1 " " $2, $3 " " $4 }'
    done
done
exit 0
