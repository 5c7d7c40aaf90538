#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t7240: fsbench matrix --age fill=60%,churn=2 on a loop ext4: the filesystem is 60 +- 3 % full
# when the first run begins (said on the terminal, in the manifest and the report), churn
# deleted files and wrote new ones, the same seed gives the same files (the list's hash) and
# another seed other ones; sizes=FILE draws from the user's histogram; bad specs and --age on a
# --target are exit 2.
. "$(dirname "$0")/lib.sh"
need_matrix_ext4

run() { # DIR SEED [AGE]
    fsb matrix --fs ext4 --age "${3:-fill=60%,churn=2}" --seed "$2" --size 64 --repeat 1 --no-db -o "$1" \
        -- tiotest -t 1 -f 2 -r 10 -b 4096 > out 2> err || fail "$1: exit $?: $(cat err)"
}
run a 7
jq -e '.aged | length == 1 and (.[0].used_pct >= 57 and .[0].used_pct <= 63) and .[0].deleted > 0
       and .[0].written > .[0].files and .[0].recipe == "fill=60%,churn=2"' a/manifest.json > /dev/null ||
    fail "aged state: $(jq -c .aged a/manifest.json)"
grep -q '^fsbench matrix: aged tiotest: [0-9.]* % full, ' err || fail "not said: $(cat err)"
# said before the first run
[ "$(grep -n 'aged tiotest' err | cut -d: -f1)" -lt "$(grep -n 'run 1/1' err | cut -d: -f1)" ] || fail "said after the run"
grep -q '^Aged before the runs (--age fill=60%,churn=2): 1 filesystem; the first was' a/report.md ||
    fail "not in the report: $(head -5 a/report.md)"
ok "60 % full before the first run, churned, said on the terminal, manifest and report"

run b 7
run c 8
# the three hashes with one jq (a jq costs ~50 ms of CPU)
mapfile -t h < <(jq -r '.aged[0].list_hash' a/manifest.json b/manifest.json c/manifest.json)
[ ${#h[@]} = 3 ] || fail "the list hashes: ${h[*]}"
ha=${h[0]} hb=${h[1]} hc=${h[2]}
[ "$ha" = "$hb" ] || fail "the same seed, other files: $ha $hb"
[ "$ha" != "$hc" ] || fail "another seed, the same files: $ha"
ok "the same seed gives the same files, another seed others"

printf '# bytes weight\n4096 3\n65536 1\n' > sizes.txt
run d 7 "fill=30%,sizes=$SCRATCH/sizes.txt"
jq -e '.aged[0] | (.bytes / .files) > 4096 and (.bytes / .files) < 65536 and .deleted == 0
       and .used_pct >= 27 and .used_pct <= 33' d/manifest.json > /dev/null ||
    fail "sizes=FILE: $(jq -c .aged d/manifest.json)"
ok "sizes=FILE"

for a in "fill=99%" "churn=2" "fill=60" "fill=60%,bogus=1" "fill=50%,sizes=$SCRATCH/none"; do
    expect_exit 2 fsb matrix --fs ext4 --age "$a" -o x -- tiotest -t 1 -f 1 2> err
    [ "$(wc -l < err)" = 1 ] || fail "$a: $(cat err)"
done
expect_exit 2 fsb matrix --target t="$SCRATCH" --age fill=50% -o x -- tiotest -t 1 -f 1 2> err
[ ! -e x ] || fail "a refused --age set something up"
ok "bad specs and --age on a target: exit 2"
