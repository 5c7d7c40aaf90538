#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0320: the JSON's environment records the fsbench version and build commit, the sysfs
# settings this machine has (CPU frequency governor and driver, transparent huge pages) and, per
# target on a block device, its disk's request queue (scheduler, model, rotational, read-ahead,
# nr_requests), each equal to sysfs and absent when sysfs has no value (never null, never nan).
. "$(dirname "$0")/lib.sh"
need_cmd jq
mkdir -p d
fsb tiotest -t 1 -f 1 -r 10 -d d --quiet --json r.json > out 2> err || fail "run: $(cat err)"
jq -e '.environment | (.fsbench_commit | type == "string" and length > 0) and .fsbench_version == "'"$("$FSBENCH" --version | awk '{print $2}')"'"' r.json > /dev/null ||
    fail "fsbench_version/commit: $(jq -c '.environment | [.fsbench_version, .fsbench_commit]' r.json)"
! jq -e '[.environment | .. | select(. == null)] | length > 0' r.json > /dev/null || fail "a null in the environment"
! grep -Eiq '(:|\[|,) *-?(nan|inf)' r.json || fail "nan/inf in the JSON"

# selected choice of a sysfs file ("a [b] c" -> b), or its one line
sel() { [ -r "$1" ] || return 1; sed -n '1{s/.*\[\(.*\)\].*/\1/;s/^[[:space:]]*//;s/[[:space:]]*$//;p}' "$1"; }
check_key() { # KEY SYSFS-FILE [JQ-PREFIX]
    local want got
    got=$(jq -r "${3:-.environment}.$1 // \"<absent>\"" r.json)
    if want=$(sel "$2") && [ -n "$want" ] && ! { [ "$1" = scheduler ] && [[ "$want" = *" "* ]]; }; then
        [ "$got" = "$want" ] || fail "$1: '$got', sysfs '$want'"
    else
        [ "$got" = "<absent>" ] || fail "$1: '$got' but sysfs has none"
    fi
}
check_key cpufreq_governor /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
check_key cpufreq_driver /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver
check_key thp_enabled /sys/kernel/mm/transparent_hugepage/enabled
check_key thp_defrag /sys/kernel/mm/transparent_hugepage/defrag
ok "host settings as sysfs has them"

disk=$(jq -r '.environment.targets[0].block_device.disk // empty' r.json)
if [ -n "$disk" ] && [ -d "/sys/block/$disk/queue" ]; then
    q='.environment.targets[0].queue'
    jq -e "$q.disk == \"$disk\"" r.json > /dev/null || fail "queue.disk: $(jq -c "$q" r.json)"
    check_key scheduler "/sys/block/$disk/queue/scheduler" "$q"
    check_key model "/sys/block/$disk/device/model" "$q"
    check_key read_ahead_kb "/sys/block/$disk/queue/read_ahead_kb" "$q"
    check_key nr_requests "/sys/block/$disk/queue/nr_requests" "$q"
    rot=$(cat "/sys/block/$disk/queue/rotational")
    jq -e "$q.rotational == ($rot == 1)" r.json > /dev/null || fail "rotational: $(jq -c "$q" r.json), sysfs $rot"
    ok "the target's queue ($disk) as sysfs has it"
else
    jq -e '.environment.targets[0] | has("queue") | not' r.json > /dev/null || fail "a queue for a target without a disk"
    ok "no disk under the target: no queue"
fi

# compare lists them under "What differs" (its environment diff is generic over keys)
jq '.environment.thp_enabled = "x-thp" | .environment.fsbench_commit = "x-commit" | .environment.targets[0].queue.scheduler = "x-sched"' r.json > r2.json
fsb compare r.json r2.json > cmp.txt 2> err || fail "compare: exit $?: $(cat err)"
sed -n '/^What differs:/,/^$/p' cmp.txt > differs.txt
for k in environment.thp_enabled environment.fsbench_commit; do
    grep -q "$k" differs.txt || fail "compare does not list $k: $(cat differs.txt)"
done
if jq -e '.environment.targets[0].queue' r.json > /dev/null; then
    grep -q 'environment.targets\[0\].queue.scheduler' differs.txt || fail "compare does not list the scheduler: $(cat differs.txt)"
fi
ok "compare lists them under What differs"
