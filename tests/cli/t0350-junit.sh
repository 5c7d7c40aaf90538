#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t0350: report --junit and history check --junit write JUnit XML valid against the Jenkins/ant
# shape (tests/cli/junit.xsd, xmllint): report one test case per primary effect and interaction,
# a failure for an effect decided worse (a synthetic 30 % drop, lib_matrix.sh); history check one
# per figure checked, its failures exactly the table's REGRESSION rows (what fails
# --fail-if-worse). A hostile cell name and axis value (& < > " ' and a control character) stay
# well-formed. A refused --junit path is exit 2 before anything is written or read.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/cli/lib_matrix.sh"
need_cmd jq
need_cmd xmllint
xsd=$TESTS_DIR/cli/junit.xsd
export XDG_DATA_HOME=$SCRATCH/xdg HOME=$SCRATCH
# the cell name (a path in the directory: no control character there) and the axis value
hcell=$(printf 'h<&"\047>x')
hostile=$(printf 'h<&"\047>\001x')
mx_base tiotest base.json
printf '%s fs=ext4 1.0 0.03\nb fs=%s 1.0 0.03\n' "$hcell" "$hostile" | MX_T0=1790000000 MX_KERNEL=6.1.0 mx_make k1 base.json 11 4 ci
printf '%s fs=ext4 0.7 0.03\nb fs=%s 0.49 0.03\n' "$hcell" "$hostile" | MX_T0=1790100000 MX_KERNEL=6.2.0 mx_make slow base.json 12 4 ci

# refused paths: exit 2, nothing written, the database not created
ln -s nowhere link.xml
expect_exit 2 fsb report --db h.db --junit link.xml k1 2> e.txt
grep -q -- "--junit" e.txt || fail "report: refusal does not name --junit: $(cat e.txt)"
[ ! -e h.db ] && [ ! -e k1/summary.json ] || fail "report: written despite a refused --junit"
expect_exit 2 fsb report --db h.db --junit nodir/j.xml k1 2> /dev/null
expect_exit 2 fsb history --db h.db check --junit link.xml 2> /dev/null
expect_exit 2 fsb history --db h.db list --junit j.xml 2> /dev/null
[ ! -e h.db ] || fail "history created the database"
ok "a refused --junit path: exit 2 before anything"

fsb report --db h.db --junit k1.xml k1 > /dev/null || fail "report k1"
fsb report --db h.db --junit slow.xml slow > /dev/null || fail "report slow"
for f in k1.xml slow.xml; do
    xmllint --noout --schema "$xsd" "$f" 2> e.txt || fail "$f not valid: $(cat e.txt)"
done
n=$(xmllint --xpath 'count(//testcase)' slow.xml)
[ "$n" -ge 3 ] || fail "report: $n test cases"
[ "$(xmllint --xpath 'string(/testsuites/testsuite/@tests)' slow.xml)" = "$n" ] || fail "report: tests attribute"
nf=$(xmllint --xpath 'count(//testcase/failure)' slow.xml)
[ "$nf" -ge 1 ] && [ "$(xmllint --xpath 'string(/testsuites/testsuite/@failures)' slow.xml)" = "$nf" ] ||
    fail "report: the 30 % drop is no failure ($nf)"
xmllint --xpath 'string(//testcase[failure][1]/@name)' slow.xml | grep -qF "fs: ext4 -> ${hcell%x}?x" ||
    fail "report: the failing case's name: $(xmllint --xpath 'string(//testcase[failure][1]/@name)' slow.xml)"
[ "$(xmllint --xpath 'count(//testcase/failure)' k1.xml)" = 0 ] || fail "report: failures without a change"
[ "$(xmllint --xpath 'string(//property[@name="experiment"]/@value)' slow.xml)" = ci ] &&
    [ "$(xmllint --xpath 'string(//property[@name="cells"]/@value)' slow.xml)" = 2 ] &&
    xmllint --xpath 'string(//property[@name="fsbench.version"]/@value)' slow.xml | grep -q '^[0-9]' ||
    fail "report: properties"
ok "report --junit: valid, the drop a failure, the hostile value escaped"

fsb history --db h.db check --fail-if-worse 10 --junit chk.xml > chk.txt; rc=$?
[ $rc = 1 ] || fail "check exit $rc: $(cat chk.txt)"
xmllint --noout --schema "$xsd" chk.xml 2> e.txt || fail "chk.xml not valid: $(cat e.txt)"
nreg=$(grep -c ' REGRESSION$' chk.txt)
[ "$nreg" -ge 1 ] || fail "no REGRESSION: $(cat chk.txt)"
[ "$(xmllint --xpath 'count(//testcase/failure)' chk.xml)" = "$nreg" ] &&
    [ "$(xmllint --xpath 'string(/testsuites/testsuite/@failures)' chk.xml)" = "$nreg" ] ||
    fail "check: failures $(xmllint --xpath 'count(//testcase/failure)' chk.xml) against $nreg REGRESSION rows"
# the hostile cell name comes back escaped (xmllint prints attributes re-escaped)
xmllint --xpath '//testcase[failure]/@classname' chk.xml | grep -qF "classname=\"history.ci.h&lt;&amp;&quot;'&gt;x\"" ||
    fail "check: the hostile cell's classname: $(xmllint --xpath '//testcase[failure]/@classname' chk.xml)"
# without a gate nothing fails, as the exit status says
expect_exit 0 fsb history --db h.db check --junit - > out.xml 2> table.txt
xmllint --noout --schema "$xsd" out.xml 2> e.txt || fail "--junit -: $(cat e.txt)"
[ "$(xmllint --xpath 'count(//testcase/failure)' out.xml)" = 0 ] || fail "failures without --fail-if-worse"
grep -q 'decided different' table.txt || fail "--junit -: the table is not on standard error"
ok "history check --junit: valid, failures = REGRESSION rows"
