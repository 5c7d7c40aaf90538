#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t8050: report.md carries text from outside (experiment, cell and axis names, host, kernel,
# workload arguments, a run's status, the checker's lines) as text: no HTML of its own (< and &
# as entities), no Markdown of its own (a table cell split by |, a heading or list item started
# by a newline, emphasis, code, links), no control byte; the checker's lines stay inside their
# code block whatever backticks they hold. report.html escapes the same text.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
export HOME=$SCRATCH
mx_base tiotest base.json
mx_make m base.json 4 2 esc <<'C'
a fs=ext4 1.0 0.03
b fs=xfs 1.0 0.03
C
cat > m/runs/a/after-run-1.json <<'J'
{"schema": "fsbench-after", "version": 1,
 "fsck": {"verdict": "errors", "tool": "e2fsck", "exit_status": 4, "message_lines": 4,
          "messages": ["````", "</pre><script>alert(3)</script>", "# not a heading", "\u001b[2Jcleared"]}}
J
jq --arg name $'exp<script>alert(1)</script>\n# pwned\n| x | y |' \
   --arg host 'h<img src=x onerror=alert(2)>|`code`|[l](javascript:x)' \
   --arg kr $'6.1 <b>bold</b> \e[31mred &amp; ~~s~~ $x$ *e* _u_' \
   --arg val '<i>ext4</i>|x' --arg cell $'a|<u>c</u>\nd' --arg st $'<svg onload=alert(4)>\n- item' '
    .experiment.name = $name | .host = $host | .kernel_release = $kr
    | .experiment.workload_args += ["<iframe src=x>", "1. item", "    code"]
    | .experiment.axes[0].values[0] = $val | .experiment.cells[0].axes.fs = $val
    | .experiment.cells[0].name = $cell
    | .runs |= map(if .cell == "a" then .cell = $cell else . end)
    | .runs |= map(if .cell == $cell and .repeat == 1 then .after = "runs/a/after-run-1.json" else . end)
    | .runs += [{cell: "b", repeat: 3, order: 99, json: null, status: $st}]' \
    m/manifest.json > m/manifest.new && mv m/manifest.new m/manifest.json || fail "jq"
fsb report --no-db m > out.txt 2> err.txt || fail "report: exit $?: $(cat err.txt)"
M=m/report.md
[ -s $M ] || fail "no report.md"

# outside the fenced blocks: no < at all (every one an entity), no raw control byte anywhere
awk '/^```+$/ { if (!f) { f = length($0) } else if (length($0) >= f) { f = 0 }; next } !f' $M > prose.md
[ "$(awk '/^```+$/ { if (!f) { f = length($0) } else if (length($0) >= f) { f = 0 } } END { print f + 0 }' $M)" = 0 ] ||
    fail "a code block is left open"
! grep -n '<' prose.md || fail "HTML outside the code blocks (above)"
! LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' $M || fail "a control byte in report.md (above)"
grep -qF '&lt;script&gt;' prose.md && fail "> became an entity too (only < and & need it)"
grep -qF '&lt;script>alert(1)&lt;/script>' prose.md || fail "the name is not there as text: $(head -3 $M)"
grep -qF '&amp;amp;' prose.md || fail "& is not an entity"
# every heading is one of the report's own (the Why section's: an effect, the axis value escaped)
grep -n '^#' prose.md | grep -v '^1:# exp' | grep -vE '^[0-9]+:##+ [A-Z(]|^[0-9]+:### fs$|^[0-9]+:### (b|a\\\|&lt;u>c&lt;/u>.d) \(' |
    grep -vE '^[0-9]+:### (random_)?(write|read) rate, fs: &lt;i>ext4&lt;/i>\\\|x -> xfs: ' &&
    fail "a heading from outside (above)"
grep -q 'pwned' prose.md && ! grep -q '^# exp.*\\# pwned' prose.md && fail "the name's second line is not on its first"
# list items and quotes only where the report makes them
! grep -nE '^ {0,3}(1\. item|- item|> )' prose.md || fail "a block from outside (above)"
! grep -n '^    code' prose.md || fail "an indented code block from outside"
# tables: every row has as many unescaped | as its header
awk '/^\|/ { n = gsub(/(^|[^\\])\|/, "&"); if (!inrow) { want = n; inrow = 1 } else if (n != want) { print NR ": " $0; bad = 1 } next }
     { inrow = 0 } END { exit bad }' prose.md || fail "a table row split by a | from outside (above)"
grep -qF '\|' prose.md || fail "| is not escaped"
grep -qF '\`code\`' prose.md || fail "backticks are not escaped"
grep -qF '\[l\](javascript:x)' prose.md || fail "the link is not escaped"
grep -qF '\~\~s\~\~ \$x\$ \*e\* \_u\_' prose.md || fail "emphasis, strike, maths not escaped: $(grep -m1 Kernel prose.md)"
# the checker's lines: inside one code block, fenced longer than their backticks
grep -qx '`````' $M || fail "the fence is not longer than the checker's four backticks"
awk '/^`````$/ { f = !f; next } f' $M | grep -qxF '</pre><script>alert(3)</script>' ||
    fail "the checker's lines are not inside the block"
awk '/^`````$/ { f = !f; next } f' $M | grep -qx '.*\[2Jcleared' || fail "the checker's last line is not in the block"
ok "report.md: outside text is text (HTML, Markdown, control bytes, code blocks)"

H=m/report.html
! grep -q '<script\|<img\|<iframe\|<svg onload\|<b>\|<u>\|<i>' $H || fail "report.html: HTML from outside"
! LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' $H || fail "a control byte in report.html"
ok "report.html: the same text escaped"
