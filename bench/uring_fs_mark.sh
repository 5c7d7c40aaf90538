#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/uring_fs_mark.sh [FSBENCH]: fs_mark's create loop through io_uring against psync (issue 12):
# -s 0 and -s 4096, -S 0, one thread, psync at depth 1 against io_uring at depths 1, 8, 32, on
# tmpfs and (as root) on loop ext4 and xfs images. Contenders alternate, ROUNDS rounds (rotated
# order); per case the median files/s (files / create-loop wall time: the aggregate), the ratio
# to psync, the median CPU per file of the process and the io-wq workers io_uring used (threads,
# their CPU per file). A report, not a test: exits 0 whatever the numbers.
#
# Environment: ROUNDS (default 11), FILES (files per run, default 20000), SIZE_MB (images, 512).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${1:-$ROOT/fsbench}
case $FSBENCH in /*) ;; *) FSBENCH=$PWD/$FSBENCH ;; esac
ROUNDS=${ROUNDS:-11}
FILES=${FILES:-20000}
SIZE_MB=${SIZE_MB:-512}
die() { echo "bench/uring_fs_mark.sh: $*" >&2; exit 1; }
[ -x "$FSBENCH" ] || die "no fsbench binary at $FSBENCH (run make first)"
command -v jq >/dev/null || die "needs jq"
"$FSBENCH" list engines | grep -q '^io_uring' || die "this fsbench has no io_uring engine"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-bench-uring-fsm.XXXXXX")
MOUNTS=()
cleanup() {
    for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
cp "$FSBENCH" "$TMP/fsbench"
SHM=$(mktemp -d /dev/shm/fsbench-bench-uring.XXXXXX)
TARGETS="tmpfs:$SHM"
trap 'cleanup; rm -rf "$SHM"' EXIT
if [ "$(id -u)" = 0 ]; then
    for fs in ext4 xfs; do
        command -v "mkfs.$fs" >/dev/null || continue
        truncate -s "${SIZE_MB}M" "$TMP/$fs.img"
        case $fs in ext4) mkfs.ext4 -q -F "$TMP/$fs.img" ;; xfs) mkfs.xfs -q -f "$TMP/$fs.img" ;; esac >/dev/null 2>&1 ||
            continue
        mkdir -p "$TMP/mnt-$fs"
        mount -o loop "$TMP/$fs.img" "$TMP/mnt-$fs" 2>/dev/null || continue
        MOUNTS+=("$TMP/mnt-$fs")
        TARGETS="$TARGETS $fs:$TMP/mnt-$fs"
    done
fi
CONTENDERS="psync:1 io_uring:1 io_uring:8 io_uring:32"
read -r -a CS <<< "$CONTENDERS"
RAW=$TMP/raw     # target size engine depth files_per_s cpu_us_per_file iowq_threads iowq_us_per_file
for r in $(seq 1 "$ROUNDS"); do
    order=""
    for k in 0 1 2 3; do order="$order ${CS[$(( (r - 1 + k) % 4 ))]}"; done
    for t in $TARGETS; do
        name=${t%%:*} dir=${t#*:}
        for size in 0 4096; do
            for c in $order; do
                eng=${c%:*} depth=${c#*:}
                "$TMP/fsbench" fs_mark -d "$dir/f" -n "$FILES" -s "$size" -S 0 -t 1 -l "$TMP/log" \
                    --engine "$eng" --iodepth "$depth" --quiet --json "$TMP/r.json" > /dev/null 2>&1 ||
                    { echo "run failed: $name -s $size $c" >&2; continue; }
                jq -r --arg t "$name" --arg s "$size" --arg e "$eng" --arg d "$depth" --argjson n "$FILES" \
                    '.iterations[0] as $i
                     | [$t, $s, $e, $d, $i.files_per_sec_aggregate, 0,
                        ($i.io_wq.create.threads // 0), (($i.io_wq.create.cpu_s // 0) * 1e6 / $n)] | @tsv' \
                    "$TMP/r.json" >> "$RAW"
            done
        done
    done
done
med() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
echo "fs_mark create loop, -S 0, -t 1, $FILES files, $ROUNDS rounds (medians); ratio: io_uring / psync"
printf '%-6s %6s %-9s %5s %12s %9s %12s %16s\n' target size engine depth files/s ratio io-wq-thr io-wq-us/file
for t in $TARGETS; do
    name=${t%%:*}
    for size in 0 4096; do
        base=$(awk -F'\t' -v t="$name" -v s="$size" '$1==t && $2==s && $3=="psync" {print $5}' "$RAW" | med)
        for c in $CONTENDERS; do
            eng=${c%:*} depth=${c#*:}
            sel() { awk -F'\t' -v t="$name" -v s="$size" -v e="$eng" -v d="$depth" -v k="$1" \
                        '$1==t && $2==s && $3==e && $4==d { print $k }' "$RAW" | med; }
            rate=$(sel 5); thr=$(sel 7); us=$(sel 8)
            [ -n "$rate" ] || continue
            awk -v t="$name" -v s="$size" -v e="$eng" -v d="$depth" -v r="$rate" -v b="$base" -v w="$thr" -v u="$us" \
                'BEGIN { printf "%-6s %6s %-9s %5s %12.0f %9.3f %12.0f %16.2f\n", t, s, e, d, r,
                         (b > 0 ? r / b : 0), w, u }'
        done
    done
done
# the goal line (make bench's summary collects every script's). Issue 12's goal here is
# fidelity, not a win: every case measured, its ratio reported whichever way it goes
cases=$(( $(wc -w <<< "$TARGETS") * 2 * ${#CS[@]} ))
measured=$(cut -f1-4 "$RAW" | sort -u | wc -l)
echo
echo "goal: every case measured ($cases: targets x sizes x engines; fidelity, no target ratio):" \
    "$([ "$measured" = "$cases" ] && echo met || echo "MISSED ($measured measured)")"
