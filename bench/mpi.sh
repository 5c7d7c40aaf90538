#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/mpi.sh [FSBENCH]: fsbench-mpi's 4 ranks x 1 thread against one fsbench process with
# -t 4, on tmpfs, for fs_mark -s 0 -S 0 (the process's threads each in a directory of its own,
# as the ranks are in DIR/rank.R) and tiotest's random read: the aggregate rate of each
# (the JSON's, over the whole window: fs_mark's files / iteration wall time, tiotest's MiB/s of
# the phase), alternating, ROUNDS rounds; prints the medians, the MPI/threaded ratio against the
# goal, and the MPI job's start skew (spread of the ranks' release times, median and max).
# A report, not a test: exits 0 whatever the numbers (non-zero only when something fails to
# run; 0 with a note when fsbench-mpi is not built).
#
# Environment: ROUNDS (default 11, at least 5), NFILES (fs_mark files per thread, default
# 20000), SIZE_MIB and ROPS (tiotest file per thread and random reads per thread, default 64
# and 200000), DIR (default /dev/shm), GOAL (default 0.95), FSBENCH_MPI (default: beside
# FSBENCH), RAW (file for the per-run numbers), MPIRUN (default "mpirun"), AA=1 (a third
# contender, threads2: the threaded process again, in its own place in the rotation; its ratio to
# the first goes through the goal's rule, printed as "A/A, not a goal": what these rounds can
# decide at the goal's margin on this host).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
FSBENCH_MPI=${FSBENCH_MPI:-$(dirname "$FSBENCH")/fsbench-mpi}
ROUNDS=${ROUNDS:-11}
NFILES=${NFILES:-20000}
SIZE_MIB=${SIZE_MIB:-64}
ROPS=${ROPS:-200000}
DIR=${DIR:-/dev/shm}
GOAL=${GOAL:-0.95}
MPIRUN=${MPIRUN:-mpirun}
AA=${AA:-0}

die() { echo "bench/mpi.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
if [ ! -x "$FSBENCH_MPI" ] || ! command -v "$MPIRUN" >/dev/null; then
    echo "bench/mpi.sh: skipped: fsbench-mpi or mpirun missing (Open MPI: deps.txt's mpi stage)"
    echo "goal: 4 ranks >= $GOAL x one process of 4 threads in both cases: skipped (no fsbench-mpi or mpirun)"
    exit 0
fi
command -v jq >/dev/null || die "needs jq"
[ "$ROUNDS" -ge 5 ] 2>/dev/null || die "ROUNDS must be at least 5"
case $AA in 0|1) ;; *) die "AA must be 0 or 1" ;; esac
CONTENDERS=(threads mpi)
[ "$AA" = 1 ] && CONTENDERS+=(threads2)
[ -d "$DIR" ] && [ -w "$DIR" ] || die "$DIR is not a writable directory"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench-mpi.XXXXXX")
WORK=$(mktemp -d "$DIR/fsbench-bench-mpi.XXXXXX")
trap 'rm -rf "$TMP" "$WORK"' EXIT
# private copies: one build for every round, even if the tree is rebuilt meanwhile
cp "$FSBENCH" "$TMP/fsbench" && cp "$FSBENCH_MPI" "$TMP/fsbench-mpi" || die "cannot copy the binaries"
KEEP_RAW=${RAW:+1}
RAW=${RAW:-$TMP/raw.txt}
: > "$RAW"
# no binding: the threaded process is not bound either; as root mpirun wants to be told
MPI=("$MPIRUN" --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)

# run_one CASE CONTENDER -> "rate skew_ns" (skew "-" for one process)
run_one() {
    local j=$TMP/r.json
    case $1:$2 in
    # one directory per thread, as each rank has its own (DIR/rank.R): the same contention
    fs_mark:threads|fs_mark:threads2) "$TMP/fsbench" fs_mark --quiet -d "$WORK/t0" -d "$WORK/t1" -d "$WORK/t2" -d "$WORK/t3" \
                         -n "$NFILES" -s 0 -S 0 -t 4 -l "$TMP/log" --json "$j" > /dev/null ;;
    fs_mark:mpi) "${MPI[@]}" -np 4 "$TMP/fsbench-mpi" fs_mark --quiet -d "$WORK/m" -n "$NFILES" -s 0 -S 0 -t 1 -l "$TMP/log" --json "$j" > /dev/null < /dev/null ;;
    tiotest:threads|tiotest:threads2) "$TMP/fsbench" tiotest --quiet -t 4 -f "$SIZE_MIB" -r "$ROPS" -k 1 -k 2 -d "$WORK" --json "$j" > /dev/null ;;
    tiotest:mpi) "${MPI[@]}" -np 4 "$TMP/fsbench-mpi" tiotest --quiet -t 1 -f "$SIZE_MIB" -r "$ROPS" -k 1 -k 2 -d "$WORK" --json "$j" > /dev/null < /dev/null ;;
    esac
    case $1 in
    fs_mark) jq -r '"\(.iterations[0].files_per_sec_aggregate) \(.mpi.phases[0].start_skew_ns // "-")"' "$j" ;;
    tiotest) jq -r '"\(.phases[] | select(.name == "random_read") | .rate_mib_per_s) \([(.mpi.phases // [])[] |
                   select(.name == "random_read") | .start_skew_ns] | first // "-")"' "$j" ;;
    esac
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "mpi bench: 4 ranks x 1 thread (mpirun -np 4 fsbench-mpi) vs one process -t 4, on $DIR" \
     "($(df -T "$DIR" | awk 'NR == 2 { print $2 }')), $ROUNDS rounds, the order rotating$([ "$AA" = 1 ] && echo ", with threads2 (A/A)"); $(nproc) CPUs, $(uname -r)," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), $("$MPIRUN" --version 2>/dev/null | head -1)"
echo "fs_mark: -n $NFILES per thread -s 0 -S 0, files/s over the iteration's window;" \
     "tiotest: -f $SIZE_MIB -r $ROPS per thread, random read MiB/s over the phase's window"
printf '\n| case | one process -t 4 | 4 ranks x 1 | MPI / threads | medians vs %s | start skew median | max |\n' "$GOAL"
echo '|---|---:|---:|---:|---|---:|---:|'
for c in fs_mark tiotest; do
    for r in $(seq 1 "$ROUNDS"); do
        # the order rotates from round to round: round r starts at the r-th contender
        for ((i = 0; i < ${#CONTENDERS[@]}; i++)); do
            k=${CONTENDERS[(r - 1 + i) % ${#CONTENDERS[@]}]}
            v=$(run_one $c $k) || die "$c $k failed"
            [ -n "$v" ] || die "$c $k printed no rate"
            echo "$c $k $r $v" >> "$RAW"
        done
    done
    t=$(awk -v c=$c '$1 == c && $2 == "threads" { print $4 }' "$RAW" | median)
    m=$(awk -v c=$c '$1 == c && $2 == "mpi" { print $4 }' "$RAW" | median)
    sk=$(awk -v c=$c '$1 == c && $2 == "mpi" { print $5 / 1000 }' "$RAW" | median)
    skmax=$(awk -v c=$c '$1 == c && $2 == "mpi" && $5 / 1000 > m { m = $5 / 1000 } END { print m + 0 }' "$RAW")
    ratio=$(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    met=$(awk -v r="$ratio" -v g="$GOAL" 'BEGIN { print (r >= g ? "above" : "below") }')
    unit=$([ $c = fs_mark ] && echo "files/s" || echo "MiB/s")
    printf '| %s | %.1f %s | %.1f %s | %s | %s | %.1f us | %.1f us |\n' \
        "$([ $c = fs_mark ] && echo "fs_mark -s 0" || echo "tiotest random read")" "$t" "$unit" "$m" "$unit" \
        "$ratio" "$met" "$sk" "$skmax"
    echo "$c $ratio" >> "$TMP/goal"
done
# each round's MPI rate over the threaded one of the same round: the pairing takes out what
# moves both (the host's load between rounds), which the ratio of medians keeps
echo
echo "per round, 4 ranks ÷ one process of the same round: median (quartiles)"
round_ratios() {   # round_ratios CONTENDER: "CASE RATIO" a round, its rate over the threaded one's
    for c in fs_mark tiotest; do
        awk -v c=$c -v a="$1" '$1 == c { r[$3, $2] = $4; n = $3 > n ? $3 : n }
            END { for (i = 1; i <= n; i++) if (r[i, "threads"] > 0 && (i, a) in r) print c, r[i, a] / r[i, "threads"] }' "$RAW"
    done
}
round_ratios mpi > "$TMP/rounds"
for c in fs_mark tiotest; do
    awk -v c=$c '$1 == c { print $2 }' "$TMP/rounds" |
        sort -g | awk -v c=$c '{ v[NR] = $1 } END { if (NR) printf "  %-8s %.3f (%.3f-%.3f), %d rounds\n", c,
            v[int((NR + 1) / 2)], v[int(NR / 4) + 1], v[int(3 * NR / 4) + 1], NR }'
done
# the goal line (make bench's summary collects every script's), decided on the same round's
# ratios (bench/goal.awk: met, MISSED, or undecided when the rounds' spread cannot tell), the
# ratio of medians beside them
echo
ex=$(awk -v l="$(cut -d' ' -f1 /proc/loadavg)" '{ if (NR == 1 || $2 < lo) { lo = $2; lc = $1 } }
    END { printf "ratio of medians lowest %.3f, %s; load %s", lo, lc, l }' "$TMP/goal")
awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v extra="$ex" \
    -v what="4 ranks >= $GOAL x one process of 4 threads in both cases, round by round" "$TMP/rounds"
# AA=1: the threaded process against itself, the same rule
if [ "$AA" = 1 ]; then
    round_ratios threads2 | awk -f "$ROOT/bench/goal.awk" -v g="$GOAL" -v head="A/A, not a goal" \
        -v what="threads2 (the same process again) >= $GOAL x one process of 4 threads in both cases, round by round"
fi
echo
# without RAW they go with the temporary directory: not named, since it is gone at exit
if [ -n "$KEEP_RAW" ]; then
    echo "per-run numbers: $RAW (case contender round rate skew_ns)"
else
    echo "per-run numbers: not kept (RAW=FILE keeps them: case contender round rate skew_ns)"
fi
