#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every test given (unit test programs and tests/cli/*.sh scripts) and prints one line
# per test and the closing summary "N passed, N failed, N skipped".
# A test passes with exit 0, is skipped (visibly) with exit 77, fails otherwise.
#
# Independent tests run in parallel, TEST_JOBS at a time (default: twice the CPUs, at most 4;
# TEST_JOBS=1 runs everything in order). A script whose first 30 lines hold "# test: serial"
# (with the reason) runs afterwards, alone: it writes a shared knob, or its figures are
# measurements that other tests' load would blur. Each test's output is in BUILD/test-logs.
set -u
logdir=${BUILD:-build}/test-logs
mkdir -p "$logdir"
jobs=${TEST_JOBS:-$(( $(nproc) * 2 ))}
[ "$jobs" -gt 4 ] && [ -z "${TEST_JOBS:-}" ] && jobs=4
case $jobs in ''|*[!0-9]*|0) echo "tests/run.sh: TEST_JOBS must be a positive number" >&2; exit 2 ;; esac

pass=0 fail=0 skip=0 failed=()
declare -A running=()      # pid -> test path

# run_one TEST: runs it with its log, then writes "rc seconds" to the log's .rc file
run_one() {
    local t=$1 name log start rc
    name=$(basename "$t")
    log="$logdir/$name.log"
    start=$(date +%s)
    case "$t" in
    *.sh) timeout 600 bash "$t" >"$log" 2>&1 ;;
    *) timeout 600 "$t" >"$log" 2>&1 ;;
    esac
    rc=$?
    echo "$rc $(( $(date +%s) - start ))" > "$log.rc"
}

# report TEST: reads its .rc file and prints its line
report() {
    local name log rc secs
    name=$(basename "$1")
    log="$logdir/$name.log"
    read -r rc secs < "$log.rc" || { rc=1 secs=0; }
    rm -f "$log.rc"
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1)); printf 'PASS  %-40s %3ss\n' "$name" "$secs"
    elif [ "$rc" -eq 77 ]; then
        skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^skip:' "$log" || echo)"
    else
        fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-40s (exit %d), last lines of %s:\n' "$name" "$rc" "$log"
        tail -n 15 "$log" | sed 's/^/      /'
    fi
}

# reap: waits for at least one running test to end (its .rc file written, or gone without
# one) and reports it
reap() {
    local pid done=0
    while [ $done = 0 ]; do
        for pid in "${!running[@]}"; do
            if [ -e "$logdir/$(basename "${running[$pid]}").log.rc" ] || ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid" 2>/dev/null
                report "${running[$pid]}"
                unset "running[$pid]"
                done=1
            fi
        done
        [ $done = 1 ] || sleep 0.2
    done
}

serial=() parallel=()
for t in "$@"; do
    rm -f "$logdir/$(basename "$t").log.rc"
    if [ "$jobs" -gt 1 ] && case "$t" in *.sh) head -n 30 "$t" | grep -q '^# test: serial' ;; *) false ;; esac; then
        serial+=("$t")
    else
        parallel+=("$t")
    fi
done
trap 'kill -TERM ${!running[*]} 2>/dev/null; exit 130' INT TERM

for t in "${parallel[@]}"; do
    while [ ${#running[@]} -ge "$jobs" ]; do reap; done
    run_one "$t" &
    running[$!]=$t
done
while [ ${#running[@]} -gt 0 ]; do reap; done
for t in "${serial[@]}"; do
    run_one "$t"
    report "$t"
done

echo
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
