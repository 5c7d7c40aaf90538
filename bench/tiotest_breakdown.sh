#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tiotest_breakdown.sh [FSBENCH [BASELINE]]: where fsbench tiotest's CPU per op goes next
# to the bare loop's (bench/bare_tiotest.c: "bare" times each op with fsbench's latency clock,
# "untimed" reads no clock per op) at the same work (the same phases, file, block size and
# random ops as bench/tiotest.sh), from cpu-clock samples (perf record, one sample per
# 100 us of CPU, user and kernel). Prints ns of CPU per op (all four phases' ops together) in:
#   syscall      the kernel (every syscall of the run: the pread/pwrite, and open/fsync/close),
#                and the instructions right after the `syscall` instruction (the guest's
#                cpu-clock samples land there when the timer fired in the kernel)
#   clock        the two latency clock reads per op (lat_now: rdtsc, or the vDSO's
#                clock_gettime and glibc's wrapper)
#   histogram    opstat_add/hist_record: the bucket, count, sum, min, max, ops, bytes
#   loop         the rest of the op loop: stop flag, offset, generator, the call's setup
#   reporter     the reporter thread (interval samples: core/sample.c)
#   fixed        everything else: start-up, setup, the phase's open/close, the JSON
# The cpu-clock of a guest counts the time its vCPU was not running (steal) too: on a busy host
# every column grows, so compare shares and ratios of one run, not ns across runs.
# A report, not a test: exits 0 whatever the numbers. Needs perf (Debian: linux-perf) and
# permission for cpu-clock samples (root, or kernel.perf_event_paranoid <= 1).
#
# Environment: RUNS (profiled runs of each, default 3: the samples add up), SIZE_MIB (256),
# ROPS (200000), BS (4096), DIR (/dev/shm), BUILD (build).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
BASELINE=${2:-}
case $BASELINE in /*|"") ;; *) BASELINE=$PWD/$BASELINE ;; esac
RUNS=${RUNS:-3}
SIZE_MIB=${SIZE_MIB:-256}
ROPS=${ROPS:-200000}
BS=${BS:-4096}
DIR=${DIR:-/dev/shm}
BUILD=${BUILD:-$ROOT/build}
PERIOD_NS=100000

die() { echo "bench/tiotest_breakdown.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || die "no baseline binary at $BASELINE"
command -v perf >/dev/null || { echo "bench/tiotest_breakdown.sh: skipped: no perf (linux-perf)"; exit 0; }
command -v jq >/dev/null || die "needs jq"
mkdir -p "$BUILD/bench"
BARE=$BUILD/bench/bare_tiotest
# linked with fsbench's latency clock, as bench/tiotest.sh builds it
BARE_SRC="$ROOT/bench/bare_tiotest.c $ROOT/src/core/clock.c"
if [ ! -x "$BARE" ] || [ -n "$(find $BARE_SRC "$ROOT/src/core/clock.h" -newer "$BARE")" ]; then
    ${CC:-cc} -O2 -g -std=gnu11 -D_GNU_SOURCE -iquote "$ROOT/src" -Wall -Wextra -o "$BARE" $BARE_SRC ||
        die "cannot build $BARE"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-breakdown.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp "$FSBENCH" "$TMP/fsbench"
[ -n "$BASELINE" ] && cp "$BASELINE" "$TMP/baseline"
cp "$BARE" "$TMP/bare"
OPS=$(( (SIZE_MIB << 20) / BS * 2 + ROPS * 2 ))

# the leaf function of every sample, and for the op loop's own function the inlined function
# each sampled instruction belongs to (perf annotate's source markers)
classify() {   # classify DATA LOOPFN -> "category samples" lines
    local data=$1 fn=$2
    # the guest's timer fires in the kernel but its sample is taken on the return to user
    # space, so the first three instructions run after each `syscall` (in address order, a jmp
    # followed to its target, a conditional jump to its fall-through: the path of a call that
    # succeeded) carry kernel time: counted as the syscall's. Three, the same count for every
    # program: fsbench's return path is cmp, jne, je (the latency clock's test), the bare
    # loop's mov, jmp, and the jmp's target
    perf annotate -i "$data" --stdio -s "$fn" 2>/dev/null | awk '
        /^ +: +[0-9]+ +[A-Za-z_0-9]+\(\):/ { cur = $3; sub(/\(\):.*/, "", cur); next }
        /^ +[0-9.]+ : +[0-9a-f]+:/ {
            ins = $0; sub(/^[^:]*:[^:]*: */, "", ins); addr = $3; sub(/:$/, "", addr)
            k++; pct[k] = $1; fnof[k] = cur; at[addr] = k; text[k] = ins }
        END {
            for (i = 1; i <= k; i++) {
                if (text[i] !~ /^syscall/) continue
                j = i + 1
                for (m = 0; m < 3 && j <= k; m++) {
                    skid[j] = 1
                    if (text[j] ~ /^jmp +[0-9a-f]+ /) { split(text[j], t, " "); j = (t[2] in at) ? at[t[2]] : j + 1 }
                    else j++
                }
            }
            for (i = 1; i <= k; i++) {
                c = fnof[i]
                if (skid[i]) cat = "syscall"
                else if (c ~ /^(lat_now|__rdtsc|clock_ns|lat_ns)$/) cat = "clock"
                else if (c ~ /^(opstat_add|hist_record|hist_index)$/) cat = "histogram"
                else if (c ~ /^(work_open|work_flush|same_file|tio_open_flags|fail_io|tio_work_queued|tio_complete|engine_exec1)$/) cat = "fixed"
                else cat = "loop"
                share[cat] += pct[i]
            }
            for (c in share) print c, share[c] }' > "$TMP/share"
    # per sample: pid/tid, ip, symbol, (dso). The threads that run the op loop are workers
    # (one per phase); the main thread (tid == pid) does setup and the JSON: fixed; any
    # other thread is a phase's reporter
    perf script -i "$data" -F pid,tid,ip,sym,dso 2>/dev/null | awk -v fn="$fn" -v sharef="$TMP/share" '
        BEGIN { while ((getline l < sharef) > 0) { split(l, a, " "); share[a[1]] = a[2] } }
        NF >= 3 {
            split($1, pt, "/"); dso = $NF; sym = (NF >= 4) ? $(NF - 1) : "?"; sub(/\+0x.*/, "", sym)
            n++; tid[n] = pt[2]; ismain[n] = (pt[1] == pt[2]); d[n] = dso; s[n] = sym
            if (sym == fn) worker[pt[2]] = 1 }
        END {
            for (i = 1; i <= n; i++) {
                if (!(tid[i] in worker)) cat = ismain[i] ? "fixed" : "reporter"
                else if (d[i] == "([kernel.kallsyms])") cat = "syscall"
                else if (d[i] == "([vdso])" || s[i] ~ /^clock_gettime/) cat = "clock"
                else if (s[i] == fn) { for (c in share) out[c] += share[c] / 100; continue }
                else cat = "fixed"
                out[cat]++
            }
            for (c in out) print c, out[c]
        }'
}

profile() {   # profile LABEL CMD...
    local label=$1; shift
    for ((r = 0; r < RUNS; r++)); do
        perf record -q -e cpu-clock -c "$PERIOD_NS" -o "$TMP/$label.$r.data" -- "$@" >/dev/null 2>"$TMP/perf.err" ||
            die "perf record $label failed: $(head -3 "$TMP/perf.err")"
        if [ "$label" != fsbench ] && [ "$label" != baseline ]; then classify "$TMP/$label.$r.data" main; else classify "$TMP/$label.$r.data" tio_work; fi
    done | awk -v l="$label" -v runs="$RUNS" -v ops="$OPS" -v p="$PERIOD_NS" '
        { s[$1] += $2; t += $2 }
        END { printf "%s", l; split("syscall clock histogram loop reporter fixed", c, " ")
              for (i = 1; i <= 6; i++) printf " %.1f", s[c[i]] * p / runs / ops
              printf " %.1f\n", t * p / runs / ops }' >> "$TMP/rows"
}

FARGS="tiotest --quiet -t 1 -f $SIZE_MIB -b $BS -r $ROPS -d $DIR --json $TMP/fsb.json"
profile bare "$TMP/bare" "$DIR" "$SIZE_MIB" "$BS" "$ROPS"
profile untimed env BARE_UNTIMED=1 "$TMP/bare" "$DIR" "$SIZE_MIB" "$BS" "$ROPS"
clocks=
profile fsbench "$TMP/fsbench" $FARGS
clocks="fsbench $(jq -r .environment.latency_clock "$TMP/fsb.json" 2>/dev/null || echo '?')"
if [ -n "$BASELINE" ]; then
    profile baseline "$TMP/baseline" $FARGS
    clocks="$clocks, baseline $(jq -r .environment.latency_clock "$TMP/fsb.json" 2>/dev/null || echo '?')"
fi
echo "bench/tiotest_breakdown.sh: $RUNS profiled runs each, $OPS ops a run (4 phases), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "latency clock: $clocks, bare $("$TMP/bare" "$DIR" 1 4096 1 | head -1 | cut -d' ' -f2), untimed none"
printf '%-9s | %8s | %6s | %9s | %6s | %8s | %6s | %8s | %s\n' "ns/op" syscall clock histogram loop reporter fixed total "x bare"
b=$(awk '$1 == "bare" { print $8 }' "$TMP/rows")
awk -v b="$b" '{ printf "%-9s | %8s | %6s | %9s | %6s | %8s | %6s | %8s | %.3f\n", $1, $2, $3, $4, $5, $6, $7, $8, $8 / b }' "$TMP/rows"
# the goal of issue 25 in CPU: what the ops cost (all but the fixed column) within 1/0.97 of
# the bare loop's
echo
awk '{ v[$1] = $8 - $7 } END { r = v["fsbench"] / v["bare"]
    printf "goal: fsbench CPU per op (all but fixed) <= bare / 0.97: %s (%.3f x bare)\n",
        (r <= 1 / 0.97 ? "met" : "MISSED"), r }' "$TMP/rows"
exit 0
