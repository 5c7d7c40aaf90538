#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8051: fsbench report reads a matrix directory's files (manifest.json, runs/*/run-*.json,
# *.after.json) only as regular files reached without a symbolic link, and as root only those
# owned by root (or the invoking user) with one name: anything else is refused, exit 2, one line
# naming the file and why, nothing written, and not a byte of the file's content anywhere.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export HOME=$SCRATCH
mx_base tiotest base.json
mx_make good base.json 4 2 links <<'C'
a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03
C
printf 'TOPSECRET-7d1f {"x": 1}\n' > secret.txt
mkdir -p elsewhere && cp good/runs/a/run-1.json elsewhere/run-1.json
cp good/runs/a/run-1.json elsewhere/run-2.json

# refused WHAT SETUP: the report refuses, exit 2, the message names WHAT, nothing written
refused() {
    rm -rf x && cp -a good x || fail "cp"
    (cd x && eval "$2") || fail "setup: $2"
    timeout 60 "$FSBENCH" report --no-db x > out.txt 2> e.txt
    rc=$?
    [ $rc = 2 ] || fail "$2: exit $rc, expected 2: $(cat e.txt)"
    # the message, its lines and what x holds read by the shell (a grep, a wc, an ls and a
    # grep a case before)
    local lines f
    mapfile -t lines < e.txt
    [[ ${lines[*]} == *"$1"* ]] || fail "$2: message '$(cat e.txt)' lacks '$1'"
    [ ${#lines[@]} = 1 ] || fail "$2: not one line: $(cat e.txt)"
    for f in x/*; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        case ${f#x/} in manifest.json | runs) ;; *) fail "$2: written: $(ls x)" ;; esac
    done
    ! grep -rqs TOPSECRET out.txt e.txt x/*.json x/*.md || fail "$2: the file's content is out"
}
refused "runs/a/run-1.json: refused: 'runs/a/run-1.json' is a symbolic link" 'ln -sf ../../../secret.txt runs/a/run-1.json'
refused "runs/a/run-1.json: refused: 'runs/a/run-1.json' is a symbolic link" 'ln -sf ../../../elsewhere/run-1.json runs/a/run-1.json'
refused "runs/a/run-1.json: refused: 'runs/a' is a symbolic link" 'rm -r runs/a && ln -s ../../elsewhere runs/a'
refused "manifest.json: refused: 'manifest.json' is a symbolic link" 'mv manifest.json ../m.json && ln -s ../m.json manifest.json'
refused "runs/a/run-1.json: refused: not a regular file" 'rm runs/a/run-1.json && mkfifo runs/a/run-1.json'
refused "runs/a/after-run-1.json: refused: 'runs/a/after-run-1.json' is a symbolic link" \
    'ln -s ../../../secret.txt runs/a/after-run-1.json &&
     jq ".runs[0].after = \"runs/a/after-run-1.json\"" manifest.json > m.new && mv m.new manifest.json'
ok "symbolic links (file, directory, manifest, after file) and a FIFO: refused, exit 2, nothing read"

if [ "$(id -u)" = 0 ]; then
    refused "runs/a/run-1.json: refused: owned by uid 65534, not root" 'chown 65534 runs/a/run-1.json'
    refused "runs/a/run-1.json: refused: 2 hard links" 'rm runs/a/run-1.json && ln ../secret.txt runs/a/run-1.json'
    refused "manifest.json: refused: owned by uid 65534" 'chown 65534 manifest.json'
    ok "as root: a file owned by another user, a hard link: refused"
fi

# a missing run stays what it was: left out with a warning
rm -rf y && cp -a good y && rm y/runs/b/run-2.json
fsb report --no-db y > out.txt 2> e.txt || fail "a missing run: exit $?: $(cat e.txt)"
grep -q 'runs/b/run-2.json: cannot open: No such file or directory: left out' y/report.md || fail "no warning"
ok "a missing run: left out with a warning"
