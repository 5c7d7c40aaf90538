# SPDX-License-Identifier: GPL-2.0-or-later
# Synthetic matrix result directories (what `fsbench matrix -o DIR` writes) with known figures,
# for the report and history tests (t8xxx). Source after lib.sh.
#
#   mx_base tiotest|fs_mark FILE   a real small result of this build (tmpfs, else the scratch
#                                  directory); the synthetic runs are copies of it
#   mx_make DIR BASE SEED REPEATS NAME < CELLS
#       CELLS: one line per cell, "NAME AXIS=VALUE[,AXIS=VALUE...] FACTOR CV"; the axes and
#       their values are taken in first-seen order. Every run of a cell gets, per tiotest phase,
#       rate = 100 FACTOR (1 + CV z0) MiB/s (IOPS the same x 256), latency mean, p50 and p90 =
#       40 us / FACTOR x (1 + CV z1), CPU sys = 20 (1 + CV z2) %; per fs_mark run files/sec =
#       1000 FACTOR (1 + CV z0), aggregate 900 FACTOR (1 + CV z1), and its iterations a falling
#       fill curve (FSUse% 0..90). z: standard normal deviates from one Park-Miller stream
#       seeded with SEED (the same in every awk). Other figures stay the base's: no spread.
#       Runs are interleaved (round r, cell c: order r * ncells + c), started one minute apart
#       from MX_T0 (epoch seconds, default 1790000000).
#   Environment: MX_KERNEL (kernel_release), MX_HOST, MX_FLAG ("CELL:REPEAT ..." runs flagged for
#   other CPU), MX_PROFILE=1 (tiotest: a synthetic kernel profile in the write phase, whose
#   top symbol's share is 40 % x FACTOR), MX_HASH_SUFFIX (appended to every config hash),
#   MX_MOUNT_OPTS (the target's mount options in every run's environment), MX_GOVERNOR (its
#   CPU frequency governor).

mx_base() {
    local w=$1 out=$2 dir=/dev/shm d
    [ -d "$dir" ] && [ -w "$dir" ] || dir=$SCRATCH
    d=$(mktemp -d "$dir/fsbench-mx.XXXXXX") || fail "mktemp"
    case $w in
    tiotest) fsb tiotest -t 1 -f 1 -r 20 -b 4096 -d "$d" --quiet --json "$out" > /dev/null ;;
    fs_mark) fsb fs_mark -d "$d" -n 20 -s 0 -S 0 -L 4 --quiet --json "$out" -l "$SCRATCH/fs_log.txt" > /dev/null ;;
    esac || { rm -rf "$d"; fail "mx_base: $w did not run"; }
    rm -rf "$d"
}

# _mx_normals SEED N SKIP [COUNT]: standard normal deviates SKIP*N+1 .. SKIP*N+N of one stream
# (Box-Muller over Park-Miller) as a JSON array; COUNT such arrays, one a line, the next N each. One stream per matrix, each run its own stretch of it:
# streams from neighbouring seeds would be correlated (Park-Miller is linear in the seed).
_mx_normals() {
    awk -v seed="$1" -v n="$2" -v skip="$3" -v count="${4:-1}" 'BEGIN {
        x = seed % 2147483646 + 1
        for (i = 0; i < 20; i++) x = (16807 * x) % 2147483647
        for (i = 0; i < (skip + count) * n; i++) {
            x = (16807 * x) % 2147483647; u1 = x / 2147483647
            x = (16807 * x) % 2147483647; u2 = x / 2147483647
            if (i >= skip * n)
                printf "%s%.8f%s", (i % n == 0 ? "[" : ","), sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2),
                    (i % n == n - 1 ? "]\n" : "")
        }
    }'
}

mx_make() {
    local dir=$1 base=$2 seed=$3 rep=$4 name=$5
    local -a cname caxes cfac ccv
    local line n=0 i r k=0 z order t0=${MX_T0:-1790000000} cl=""
    while read -r line; do
        [ -n "$line" ] || continue
        set -- $line
        cname[n]=$1 caxes[n]=$2 cfac[n]=$3 ccv[n]=$4
        cl+="$1"$'\t'"$2"$'\n'
        n=$((n + 1))
    done
    mkdir -p "$dir/runs" "${cname[@]/#/$dir/runs/}" || fail "mkdir $dir"
    # one awk for every run's deviates, the times by printf, and one jq for everything else:
    # every run's JSON (one line each), then the manifest (a jq costs ~50 ms of CPU: a jq a run,
    # then one per cell, was most of the t8xxx tests' CPU)
    local -a zs files=() outs=()
    local ps="" out
    local rows=""
    mapfile -t zs < <(_mx_normals "$seed" 16 0 $((rep * n)))
    for ((r = 1; r <= rep; r++)); do
        for ((i = 0; i < n; i++)); do
            order=$(((r - 1) * n + i))
            z=${zs[order]}
            local f="$dir/runs/${cname[i]}/run-$r.json" flag=false cpu=1.5 start end
            case " ${MX_FLAG:-} " in *" ${cname[i]}:$r "*) flag=true cpu=42.0 ;; esac
            TZ=UTC0 printf -v start '%(%Y-%m-%dT%H:%M:%SZ)T' $((t0 + order * 60))
            TZ=UTC0 printf -v end '%(%Y-%m-%dT%H:%M:%SZ)T' $((t0 + order * 60 + 30))
            ps+="${ps:+,}{\"z\":$z,\"f\":${cfac[i]},\"cv\":${ccv[i]}}"
            files+=("$f")
            rows+="${cname[i]}"$'\t'"$r"$'\t'"$order"$'\t'"$start"$'\t'"$end"$'\t'"$flag"$'\t'"$cpu"$'\n'
            k=$((k + 1))
        done
    done
    # cell names hold no tab or newline (they are file names of one line in CELLS)
    out=$(jq -r --argjson ps "[$ps]" --arg cl "$cl" --arg rows "$rows" --arg name "$name" \
        --arg sfx "${MX_HASH_SUFFIX:-}" --arg host "${MX_HOST:-testhost}" \
        --argjson prof "${MX_PROFILE:-0}" --arg kr "${MX_KERNEL:-6.1.0-test}" --arg mo "${MX_MOUNT_OPTS:-}" --arg gov "${MX_GOVERNOR:-}" '
        . as $b | ($b.workload | tostring) as $w
        | ($ps[] | .z as $z | .f as $f | .cv as $cv | $b
            | .environment.kernel_release = $kr
            | if $mo != "" then .environment.targets[0].mount_options = $mo else . end
            | if $gov != "" then .environment.cpufreq_governor = $gov else . end
            | if $w == "tiotest" then
                .phases |= [to_entries[] | .key as $i | .value
                | .rate_mib_per_s = 100 * $f * (1 + $cv * $z[$i * 3])
                | .iops = .rate_mib_per_s * 256
                | .latency.mean_ns = 40000 / $f * (1 + $cv * $z[$i * 3 + 1])
                | .latency.p50_ns = .latency.mean_ns | .latency.p90_ns = .latency.mean_ns * 1.5
                | .cpu_sys_pct = 20 * (1 + $cv * $z[$i * 3 + 2])
                | if $prof == 1 and $i == 0 then .profile = {event: "cpu-clock", scope: "system",
                    frequency_hz: 999, cpus: 2, idle_excluded: true, samples: 1000, lost: 0, wall_ns: 1000000,
                    entries: [{samples: (400 * $f | floor), pct: 0, image: "vmlinux", symbol: "ext4_mb_use_preallocated"},
                              {samples: 300, pct: 0, image: "vmlinux", symbol: "__copy_user_nocache"},
                              {samples: (300 - (400 * $f | floor) + 400), pct: 0, image: "jbd2", symbol: "do_get_write_access"}],
                    stacks: [{stack: "fsbench;ksys_write;ext4_mb_use_preallocated", count: (400 * $f | floor)},
                             {stack: "fsbench;ksys_write;__copy_user_nocache", count: 300},
                             {stack: "fsbench;ksys_write;jbd2_journal;do_get_write_access",
                              count: (300 - (400 * $f | floor) + 400)}]}
                  else . end]
              else
                .summary.files_per_sec_sum_of_threads.average = 1000 * $f * (1 + $cv * $z[0])
                | .summary.files_per_sec_aggregate.average = 900 * $f * (1 + $cv * $z[1])
                | (.iterations | length) as $n
                | .iterations |= [to_entries[] | .key as $i | .value
                    | .fs_use_pct = ($i * 90 / ([$n - 1, 1] | max) | floor)
                    | .files_per_sec_sum_of_threads = 1000 * $f * (1 + $cv * $z[2 + $i % 14]) * (1.3 - 0.6 * $i / ([$n - 1, 1] | max))
                    | .files_per_sec_aggregate = .files_per_sec_sum_of_threads * 0.9]
              end
            | tojson),
          ([$cl | split("\n")[] | select(length > 0) | split("\t")] as $cs
           # axes: names and values in first-seen order
           | ([$cs[][1] | split(",")[] | split("=") | {name: .[0], value: .[1]}]
              | reduce .[] as $a ([]; if any(.[]; .name == $a.name)
                then map(if .name == $a.name and (.values | index($a.value) | not) then .values += [$a.value] else . end)
                else . + [{name: $a.name, values: [$a.value]}] end)) as $axes
           | [$cs[] | {name: .[0], axes: (.[1] | split(",") | map(split("=") | {(.[0]): .[1]}) | add),
                       config: {cell: .[0], axes: .[1]}, config_hash: "h-\(.[0])\($sfx)"}] as $cells
           | [$rows | split("\n")[] | select(length > 0) | split("\t")
              | {cell: .[0], repeat: (.[1] | tonumber), order: (.[2] | tonumber), started_at: .[3], ended_at: .[4],
                 json: "runs/\(.[0])/run-\(.[1]).json", exit_status: 0, other_cpu_pct: (.[6] | tonumber),
                 other_cpu_flag: (.[5] == "true")}] as $runs
           | {schema: "fsbench-matrix", version: 1,
              experiment: {name: $name, axes: $axes, cells: $cells, workload: $w, workload_args: ["-t", "1", "-f", "1"]},
              kernel_release: $kr, host: $host, fsbench_version: "0.1.0", target: {kind: "image", size_bytes: 1073741824},
              undo: [], runs: ($runs | sort_by(.order))})' "$base") || fail "mx_make: jq on $base"
    mapfile -t outs <<<"$out"
    [ "${#outs[@]}" -gt "${#files[@]}" ] || fail "mx_make: ${#outs[@]} lines from jq, ${#files[@]} runs and a manifest expected"
    for ((k = 0; k < ${#files[@]}; k++)); do printf '%s\n' "${outs[k]}" > "${files[k]}" || fail "mx_make: ${files[k]}"; done
    printf '%s\n' "${outs[@]:k}" > "$dir/manifest.json" || fail "mx_make: manifest"
}
