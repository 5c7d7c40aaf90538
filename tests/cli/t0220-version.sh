#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0220: --version says the version and the commit the binary was built from (`git describe
# --always --dirty` when built in a git tree, else "release"); the man page's date is
# SOURCE_DATE_EPOCH's when set (reproducible builds), else the last commit's, else today's.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$TESTS_DIR/.." && pwd)
VERSION=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
[ -n "$VERSION" ] || fail "no VERSION in the Makefile"

v=$(fsb --version) || fail "fsbench --version: exit $?"
[[ $v =~ ^fsbench\ ${VERSION//./\\.}\ \((release|[0-9a-f]{7,}(-dirty)?|v?[0-9][^ ]*-g[0-9a-f]+(-dirty)?)\)$ ]] ||
    fail "--version: '$v' (expected 'fsbench $VERSION (COMMIT)')"
commit=${BASH_REMATCH[1]}
if [ "$commit" != release ] && command -v git >/dev/null && git -C "$TOP" rev-parse 2>/dev/null; then
    hash=${commit%-dirty}; hash=${hash##*-g}
    git -C "$TOP" rev-parse -q --verify "$hash^{commit}" >/dev/null || fail "--version: '$hash' is no commit of $TOP"
fi
ok "--version: $v"

# the man page's date: the .TH line's third field. With SOURCE_DATE_EPOCH, from the page's
# first lines (its .TH among them): the date does not depend on the rest, whose 3,000 lines
# the script reads one by one (half a second of CPU a run)
head -5 "$TOP/doc/fsbench.1.in" > head.1.in
grep -q '^\.TH FSBENCH 1 "@DATE@"' head.1.in || fail "no .TH line with @DATE@ in doc/fsbench.1.in's first lines"
for epoch in 0 1000000000; do
    SOURCE_DATE_EPOCH=$epoch "$TOP/scripts/mkman.sh" "$FSBENCH" head.1.in "$VERSION" > man ||
        fail "mkman.sh with SOURCE_DATE_EPOCH=$epoch"
    want=$(date -u -d "@$epoch" +%Y-%m-%d)
    th=$(grep -m1 '^\.TH' man)
    [ "$th" = ".TH FSBENCH 1 \"$want\" \"fsbench $VERSION\" \"User Commands\"" ] ||
        fail "SOURCE_DATE_EPOCH=$epoch: '$th' (expected the date $want)"
done
ok "SOURCE_DATE_EPOCH sets the man page's date"
env -u SOURCE_DATE_EPOCH "$TOP/scripts/mkman.sh" "$FSBENCH" "$TOP/doc/fsbench.1.in" "$VERSION" > man || fail "mkman.sh"
grep -qE '^\.TH FSBENCH 1 "[0-9]{4}-[0-9]{2}-[0-9]{2}" ' man || fail "no date without SOURCE_DATE_EPOCH: $(grep -m1 '^\.TH' man)"
ok "a date without it: $(grep -m1 '^\.TH' man | cut -d'"' -f2)"
