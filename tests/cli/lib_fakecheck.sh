# SPDX-License-Identifier: GPL-2.0-or-later
# Fake after-run tools for the t60xx tests of the time limit and the escaping. Source after
# lib.sh. fsbench finds a checker by name in $PATH first (sys/spawn.c: spawn_find), so a script
# named e2fsck in $FAKE_BIN, put first on PATH, is the one that runs. Every process they start
# runs from $FAKE_BIN (the sleeper is a copy of sleep there), so a process whose command line
# names $FAKE_BIN is one of theirs, and fake_left finds what survived.
#
#   fake_tool NAME KIND    $FAKE_BIN/NAME: sleeps     prints a line, then the sleeper (not exec:
#                                                     the shell and its child)
#                                         daemonizes  starts the sleeper in the background,
#                                                     holding its output, and exits 0
#                                         escapes     prints terminal escape sequences (CSI,
#                                                     OSC title, BEL, C1 CSI), exits STATUS
#                                                     (default 4: errors found)
#   fake_left              the pids of fake processes still running (none: empty)
#   fake_wait_started      waits (up to 10 s) for the sleeper to run
#   fake_kill              kills what is left of them (the cleanup; a test still fails first)
FAKE_BIN=$SCRATCH/fakebin
mkdir -p "$FAKE_BIN"
cp "$(command -v sleep)" "$FAKE_BIN/fake-sleeper" || fail "cannot copy sleep"

fake_tool() {
    local name=$1 kind=$2 status=${3:-4}
    case $kind in
    sleeps)
        printf '#!/bin/sh\necho "%s 1.47.0 (5-Feb-2023)"\n"%s/fake-sleeper" 1000\n' "$name" "$FAKE_BIN" ;;
    daemonizes)
        printf '#!/bin/sh\necho "%s 1.47.0 (5-Feb-2023)"\n"%s/fake-sleeper" 1000 &\nexit 0\n' "$name" "$FAKE_BIN" ;;
    escapes)
        printf '#!/bin/sh\nprintf '"'"'Inode 12 \\033[31mred\\033[0m \\033]0;pwned\\007 \\233 2J\\n'"'"'\nexit %s\n' "$status" ;;
    esac > "$FAKE_BIN/$name"
    chmod +x "$FAKE_BIN/$name"
}

fake_left() { pgrep -f "^(/bin/sh )?$FAKE_BIN/" | tr '\n' ' '; }

fake_wait_started() {
    local _
    for _ in $(seq 1 100); do
        pgrep -f "^$FAKE_BIN/fake-sleeper" > /dev/null && return 0
        sleep 0.1
    done
    fail "the fake checker did not start"
}

fake_kill() {
    local p
    for p in $(fake_left); do kill -KILL "$p" 2>/dev/null; done
}

# no raw control byte but newline and tab (ESC, BEL, C1 CSI) in FILE
no_raw_escapes() {
    ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\x9b' "$1"
}
