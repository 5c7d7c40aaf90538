#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every test given (unit test programs and tests/cli/*.sh scripts) and prints one line
# per test and the closing summary "N passed, N failed, N skipped".
# A test passes with exit 0, is skipped (visibly) with exit 77, fails otherwise.
#
# Independent tests run in parallel, TEST_JOBS at a time (default: twice the CPUs, at most 4;
# TEST_JOBS=1 runs everything in order). A script whose first 30 lines hold "# test: serial"
# (with the reason) runs afterwards, alone: it changes what every other test sees (a mount
# namespace that pins their devices, io_uring_disabled), or its figures are measurements that
# other tests' load would blur. "# test: exclusive NAME (why)" runs in the parallel part but
# never beside another test with the same NAME: the tests that write one knob, which no other
# test reads. The longest tests start first, so that the parallel part does not end with one
# long test alone: the seconds of the last run (BUILD/test-times, else tests/test-times),
# else "# test: slow" first.
# Each test's output is in BUILD/test-logs. Each line says the test's seconds and its CPU
# seconds (user + system of all its processes: what the load does not change); the summary
# the parts' wall times and the CPU of them all.
set -u
logdir=${BUILD:-build}/test-logs
mkdir -p "$logdir"
case $logdir in /*) ;; *) logdir=$PWD/$logdir ;; esac
# python3 is Debian's for every test (lib.sh's reason), linked here once: lib.sh then finds it
# without a link of its own per test (a mkdir and an ln each)
if [ -x /usr/bin/python3 ] && { ! hash python3 2>/dev/null || ! [ "${BASH_CMDS[python3]}" -ef /usr/bin/python3 ]; }; then
    mkdir -p "$logdir/.bin" && ln -sfn /usr/bin/python3 "$logdir/.bin/python3" && export PATH=$logdir/.bin:$PATH
fi
jobs=${TEST_JOBS:-$(( $(nproc) * 2 ))}
[ "$jobs" -gt 4 ] && [ -z "${TEST_JOBS:-}" ] && jobs=4
case $jobs in ''|*[!0-9]*|0) echo "tests/run.sh: TEST_JOBS must be a positive number" >&2; exit 2 ;; esac

times=${BUILD:-build}/test-times
pass=0 fail=0 skip=0 failed=()
declare -A running=()      # pid -> test path
declare -A group=()        # test path -> its exclusive NAME
declare -A busy=()         # exclusive NAME -> 1 while one of its tests runs
declare -A known=()        # test name -> "seconds cpu" (test-times, then this run's)

# run_one TEST: runs it with its log, then writes "rc seconds" and bash's times to the log's
# .rc file (report reads them: no awk and no file of its own per test).
# Run in a subshell of its own: bash's times then counts this test's processes alone.
run_one() {
    local t=$1 name log start rc
    name=${t##*/}
    log="$logdir/$name.log"
    start=$EPOCHSECONDS
    case "$t" in
    *.sh) timeout 600 bash "$t" >"$log" 2>&1 ;;
    *) timeout 600 "$t" >"$log" 2>&1 ;;
    esac
    rc=$?
    { echo "$rc $((EPOCHSECONDS - start))"; times; } > "$log.rc"
}

# add_ms 0m1.234s: adds its milliseconds (bash's times format) to the caller's ms
add_ms() {
    local m=${1%%m*} r=${1#*m}
    r=${r%s}
    ms=$((ms + (10#$m * 60 + 10#${r%.*}) * 1000 + 10#${r#*.}))
}

# report TEST: reads its .rc file and prints its line
report() {
    local name log rc secs cpu u s ms=0 tenths
    name=${1##*/}
    log="$logdir/$name.log"
    # the .rc file: "rc seconds", then times: the shell's, then the children's user and system
    { read -r rc secs && read -r u s && read -r u s; } < "$log.rc" || { rc=${rc:-1} secs=${secs:-0}; }
    case $u$s in *m*.*s*m*.*s) add_ms "$u"; add_ms "$s" ;; esac
    tenths=$(( (ms + 50) / 100 ))
    cpu=$((tenths / 10)).$((tenths % 10))
    [ "$rc" -eq 77 ] || took[$name]="$secs $cpu"
    cpu_tenths=$((cpu_tenths + tenths))
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1)); printf 'PASS  %-40s %3ss  cpu %5ss\n' "$name" "$secs" "$cpu"
    elif [ "$rc" -eq 77 ]; then
        skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^skip:' "$log" || echo)"
    else
        fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-40s (exit %d), last lines of %s:\n' "$name" "$rc" "$log"
        tail -n 15 "$log" | sed 's/^/      /'
    fi
}

# reap: waits for at least one running test to end (its .rc file written, or gone without
# one) and reports it. `wait -n` sleeps until a test's subshell ends (it also returns one that
# ended before it was called), so the runner forks nothing while tests run: a `sleep` and a
# `basename` per running test five times a second cost ~60 s of CPU over a make check.
reap() {
    local pid done=0 name
    while [ $done = 0 ]; do
        for pid in "${!running[@]}"; do
            name=${running[$pid]##*/}
            if [ -e "$logdir/$name.log.rc" ] || ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid" 2>/dev/null
                report "${running[$pid]}"
                [ -n "${group[${running[$pid]}]:-}" ] && unset "busy[${group[${running[$pid]}]}]"
                unset "running[$pid]"
                done=1
            fi
        done
        [ $done = 1 ] || wait -n "${!running[@]}" 2>/dev/null
    done
}

# the hints of every script's first 30 lines, in one awk: "PATH serial|slow|exclusive NAME"
declare -A hint=()
scripts=()
for t in "$@"; do case "$t" in *.sh) scripts+=("$t") ;; esac; done
if [ ${#scripts[@]} -gt 0 ]; then
    while read -r t kind arg; do
        case $kind in
        serial|slow) hint[$t]=${hint[$t]:-$kind} ;;
        exclusive) [ -n "$arg" ] && group[$t]=$arg ;;
        esac
    done < <(awk 'FNR > 30 { nextfile }
        /^# test: (serial|slow)/ { print FILENAME, $3 }
        /^# test: exclusive / { print FILENAME, $3, $4 }' "${scripts[@]}")
fi
declare -A took=()
# tests/test-times (committed, from a make check on the 2-core test machine) orders a fresh
# clone's first run; BUILD/test-times (this machine's last run) overrides it test by test
for f in "$(dirname "$0")/test-times" "$times"; do
    [ -r "$f" ] && while read -r name s c; do known[$name]="$s${c:+ $c}"; done < "$f"
done

# the .rc files of an earlier run, in one rm (an rm per test cost ~12 ms of CPU each); report
# leaves this run's, removed at the end
stale=()
for t in "$@"; do [ -e "$logdir/${t##*/}.log.rc" ] && stale+=("$logdir/${t##*/}.log.rc"); done
[ ${#stale[@]} -eq 0 ] || rm -f "${stale[@]}"
serial=() parallel=()
for t in "$@"; do
    if [ "$jobs" -gt 1 ] && [ "${hint[$t]:-}" = serial ]; then
        serial+=("$t")
    else
        parallel+=("$t")
    fi
done
# longest first (stable: the rest in the order given)
if [ "$jobs" -gt 1 ] && [ ${#parallel[@]} -gt 0 ]; then
    mapfile -t parallel < <(for t in "${parallel[@]}"; do
        n=${t##*/}
        s=${known[$n]:-}
        s=${s%% *}
        [ -z "$s" ] && { [ "${hint[$t]:-}" = slow ] && s=100000 || s=0; }
        printf '%s %s\n' "$s" "$t"
    done | sort -s -k1,1nr | cut -d' ' -f2-)
fi
trap 'kill -TERM ${!running[*]} 2>/dev/null; exit 130' INT TERM

# the next test to start: the first pending one whose exclusive NAME is not busy
cpu_tenths=0
t_start=$EPOCHSECONDS
pending=("${parallel[@]}")
while [ ${#pending[@]} -gt 0 ]; do
    while [ ${#running[@]} -ge "$jobs" ]; do reap; done
    next=-1
    for i in "${!pending[@]}"; do
        g=${group[${pending[$i]}]:-}
        if [ -z "$g" ] || [ -z "${busy[$g]:-}" ]; then next=$i; break; fi
    done
    if [ "$next" -lt 0 ]; then reap; continue; fi
    t=${pending[$next]}
    unset "pending[$next]"
    pending=("${pending[@]}")
    [ -n "${group[$t]:-}" ] && busy[${group[$t]}]=1
    run_one "$t" &
    running[$!]=$t
done
while [ ${#running[@]} -gt 0 ]; do reap; done
t_par=$EPOCHSECONDS
for t in "${serial[@]}"; do
    (run_one "$t")
    report "$t"
done
t_end=$EPOCHSECONDS
rcs=()
for t in "$@"; do rcs+=("$logdir/${t##*/}.log.rc"); done
rm -f "${rcs[@]}"
# the seconds of each test that ran (not skipped), for the next run's order
for n in "${!took[@]}"; do known[$n]=${took[$n]}; done
for n in "${!known[@]}"; do printf '%s %s\n' "$n" "${known[$n]}"; done | LC_ALL=C sort > "$times.tmp" &&
    mv "$times.tmp" "$times"

echo
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
echo "$((t_end - t_start)) s: parallel part $((t_par - t_start)) s, serial part $((t_end - t_par)) s ($jobs at a time," \
    "load $(cut -d' ' -f1 /proc/loadavg)); CPU of the tests $((cpu_tenths / 10)).$((cpu_tenths % 10)) s"
[ $fail -eq 0 ]
