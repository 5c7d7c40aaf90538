#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0200: the license is stated once, in LICENSE (GPL-2.0-or-later, the full text), and every
# source file under src/ tests/unit/ tests/cli/ scripts/ bench/ says so in its first lines
# ("SPDX-License-Identifier: GPL-2.0-or-later", after a #! line if any). Source files: .c .h
# .sh .pl .py .awk and any other file starting with "#!". Skipped (77) while NO source file
# has a header yet: the headers are added in one sweep over the whole tree.
. "$(dirname "$0")/lib.sh"
unsanitized_only
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

# One awk over the whole list (a head and two greps per file were most of this test's time):
# it prints "src FILE" for each source file (an extension above, or a first line starting
# with "#!"), "hdr FILE" when the header is in its first 3 lines (line 1 may be #!, line 2 a
# vim/emacs mode line), and "other FILE: ID" for another license identifier anywhere in it.
( cd "$TOP" && find src tests/unit tests/cli scripts bench -type f 2>/dev/null | LC_ALL=C sort |
    awk -v spdx="$SPDX" -v key="${SPDX%% *} " -v q="'" '
    {
        f = $0; src = (f ~ /\.(c|h|sh|pl|py|awk)$/)
        if ((getline line < f) <= 0) { if (src) print "src " f; close(f); next }
        if (!src && substr(line, 1, 2) != "#!") { close(f); next }
        print "src " f
        n = 0; hdr = 0; other = ""
        do {
            n++
            if (n <= 3 && index(line, spdx)) hdr = 1
            # one identifier per file, and only this one
            i = index(line, key)
            if (i && other == "") {
                id = substr(line, i)
                if (!index(id, spdx) && !index(id, "grep") && !index(id, "SPDX=" q)) other = id
            }
        } while ((getline line < f) > 0)
        close(f)
        if (hdr) print "hdr " f
        if (other != "") print "other " f ": another license identifier: " other
    }' ) > "$SCRATCH/scan"
other=$(grep -m1 '^other ' "$SCRATCH/scan")
[ -z "$other" ] || fail "${other#other }"
n=$(grep -c '^src ' "$SCRATCH/scan")
[ "$n" -gt 100 ] || fail "only $n source files found under $TOP"
with=$(grep -c '^hdr ' "$SCRATCH/scan")
mapfile -t without < <(awk '$1 == "src" { s[++n] = substr($0, 5) } $1 == "hdr" { h[substr($0, 5)] = 1 }
    END { for (i = 1; i <= n; i++) if (!(s[i] in h)) print s[i] }' "$SCRATCH/scan")
[ "$with" -gt 0 ] || skip "no SPDX headers yet ($n source files)"
[ "${#without[@]}" -eq 0 ] || fail "${#without[@]} of $n source files lack '$SPDX' in their first 3 lines: ${without[*]:0:10}"
ok "$n source files carry '$SPDX'"
