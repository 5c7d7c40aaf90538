#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0200: the license is stated once, in LICENSE (GPL-2.0-or-later, the full text), and every
# source file under src/ tests/unit/ tests/cli/ scripts/ bench/ says so in its first lines
# ("SPDX-License-Identifier: GPL-2.0-or-later", after a #! line if any). Source files: .c .h
# .sh .pl .py .awk and any other file starting with "#!". Skipped (77) while NO source file
# has a header yet: the headers are added in one sweep over the whole tree.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$TESTS_DIR/.." && pwd)
SPDX='SPDX-License-Identifier: GPL-2.0-or-later'

[ -f "$TOP/LICENSE" ] || fail "no LICENSE file"
grep -q 'GNU GENERAL PUBLIC LICENSE' "$TOP/LICENSE" && grep -q 'Version 2, June 1991' "$TOP/LICENSE" ||
    fail "LICENSE is not the GPL version 2"
grep -q 'END OF TERMS AND CONDITIONS' "$TOP/LICENSE" || fail "LICENSE is not the full text"
if [ -f /usr/share/common-licenses/GPL-2 ]; then
    cmp -s /usr/share/common-licenses/GPL-2 "$TOP/LICENSE" || fail "LICENSE differs from /usr/share/common-licenses/GPL-2"
fi
ok "LICENSE: the GPL-2 text"

list=$SCRATCH/files
( cd "$TOP" && find src tests/unit tests/cli scripts bench -type f 2>/dev/null | LC_ALL=C sort ) |
while IFS= read -r f; do
    case $f in
    *.c|*.h|*.sh|*.pl|*.py|*.awk) echo "$f" ;;
    *) [ "$(head -c 2 "$TOP/$f")" = '#!' ] && echo "$f" ;;
    esac
done > "$list"
n=$(wc -l < "$list")
[ "$n" -gt 100 ] || fail "only $n source files found under $TOP"

with=0 without=()
while IFS= read -r f; do
    # the header in the first 3 lines (line 1 may be #!, line 2 a vim/emacs mode line)
    if head -n 3 "$TOP/$f" | grep -qF "$SPDX"; then
        with=$((with + 1))
    else
        without+=("$f")
    fi
    # one identifier per file, and only this one
    other=$(grep -o 'SPDX-License-Identifier: .*' "$TOP/$f" | grep -vF "$SPDX" | grep -v "grep\|SPDX='" | head -n 1)
    [ -z "$other" ] || fail "$f: another license identifier: $other"
done < "$list"
[ "$with" -gt 0 ] || skip "no SPDX headers yet ($n source files)"
[ "${#without[@]}" -eq 0 ] || fail "${#without[@]} of $n source files lack '$SPDX' in their first 3 lines: ${without[*]:0:10}"
ok "$n source files carry '$SPDX'"
