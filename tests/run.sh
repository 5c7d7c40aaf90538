#!/bin/bash
# Runs every test given (unit test programs and tests/cli/*.sh scripts) and prints one line
# per test and the closing summary "N passed, N failed, N skipped".
# A test passes with exit 0, is skipped (visibly) with exit 77, fails otherwise.
set -u
pass=0 fail=0 skip=0 failed=()
logdir=${BUILD:-build}/test-logs
mkdir -p "$logdir"
for t in "$@"; do
    name=$(basename "$t")
    log="$logdir/$name.log"
    start=$(date +%s)
    case "$t" in
    *.sh) timeout 600 bash "$t" >"$log" 2>&1 ;;
    *) timeout 600 "$t" >"$log" 2>&1 ;;
    esac
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); printf 'PASS  %-40s %3ss\n' "$name" "$secs"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^skip:' "$log" || echo)"
    else
        fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-40s (exit %d), last lines of %s:\n' "$name" "$rc" "$log"
        tail -n 15 "$log" | sed 's/^/      /'
    fi
done
echo
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
