#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t1100: the classic output, byte for byte (tiotest.md §4), on tmpfs.
# - the fixed lines (titles, rules, headers) exactly; every data row equal to its own numbers
#   printed again with the exact printf format of §4.1/§4.2 (so any column width, spacing or
#   precision drift fails); widths 72 and 75 while the numbers fit; the latency table's
#   trailing empty line; rows present or absent per -k; no latency table with -L;
# - terse: exactly five lines, eight %.5f fields (four for total), skipped phases as zeros;
# - the reference command (-t 1 -r 15000 -b 4096, smaller -f) against the real 2009 output
#   (reference/000_b76d721286a0babc.txt, whitespace collapsed there): same lines once numbers
#   are masked, and the Random rows show 59 MBs (15000*4096/2^20 = 58.59);
# - the parsers' way in: tiobench.pl's split of terse lines on [:,], and regex scrapers of the
#   tables (checked against the reference output first, so the regexes are the real thing).
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
need_cmd perl
[ "$(stat -f -c %T "$SCRATCH")" = tmpfs ] || skip "no tmpfs at /dev/shm"
DIR=$SCRATCH/d
mkdir -p "$DIR"
# The real 2009 output is in the repository, doc/reference/ (or FSBENCH_REFERENCE=FILE).
# Without it the golden comparison, the point of this test, cannot run: that is a failure, not a
# skip, so a broken layout cannot turn the comparison off unnoticed.
REF_NAME=doc/reference/000_b76d721286a0babc.txt
TOP=$(cd "$TESTS_DIR/.." && pwd)
REF=${FSBENCH_REFERENCE:-$TOP/$REF_NAME}
[ -r "$REF" ] || fail "the reference output $REF is not readable"

# layout.pl THREADS PHASES LAT MB... < output: PHASES is the shown rows as digits (0 write,
# 1 random write, 2 read, 3 random read), LAT 1 when the latency table must be there, then the
# expected MBs of each shown row as tiotest rounds them.
cat > "$SCRATCH/layout.pl" <<'EOF'
use strict; use warnings;
my ($t, $phases, $lat, @mb) = @ARGV;
local $/; my $all = <STDIN>;
die "output does not end with a newline\n" unless $all =~ /\n\z/;
my @l = split /\n/, $all, -1; pop @l;      # the part after the last "\n" is empty
my $i = 0;
sub want { my ($s) = @_; my $got = $l[$i] // '<EOF>';
    die sprintf("line %d: expected\n  [%s]\ngot\n  [%s]\n", $i + 1, $s, $got) if $got ne $s; $i++; }
my @label = ('Write', 'Random Write', 'Read', 'Random Read');
my @mbfmt = ('| Write %11.0f MBs |', '| Random Write %4.0f MBs |', '| Read %12.0f MBs |', '| Random Read %5.0f MBs |');
my $tail = ' %6.1f s | %7.3f MB/s | %5.1f %%  | %5.1f %% |';
want("Tiotest results for $t concurrent io threads:");
want(',----------------------------------------------------------------------.');
want('| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |');
want('+-----------------------+----------+--------------+----------+---------+');
my $k = 0; my @shown = split //, $phases;
for my $p (@shown) {
    my $s = $l[$i] // '<EOF>';
    $s =~ /^\| \Q$label[$p]\E +(\d+) MBs \| +(\d+\.\d) s \| +(\d+\.\d{3}) MB\/s \| +(\d+\.\d) %  \| +(\d+\.\d) % \|$/
        or die sprintf("line %d: not a %s row: [%s]\n", $i + 1, $label[$p], $s);
    my ($m, $tm, $rate, $usr, $sys) = ($1, $2, $3, $4, $5);
    want(sprintf($mbfmt[$p] . $tail, $m, $tm, $rate, $usr, $sys));
    die "row $label[$p]: $m MBs, expected $mb[$k]\n" if defined $mb[$k] && $m != $mb[$k];
    die "row $label[$p]: is " . length($s) . " characters wide, not 72\n"
        if $rate < 1000 && $usr < 1000 && $sys < 1000 && $m < 10 ** (length(sprintf($mbfmt[$p], 0)) - 20) && length($s) != 72;
    $k++;
}
want("`----------------------------------------------------------------------'");
if ($lat) {
    want('Tiotest latency results:');
    want(',-------------------------------------------------------------------------.');
    want('| Item         | Average latency | Maximum latency | % >2 sec | % >10 sec |');
    want('+--------------+-----------------+-----------------+----------+-----------+');
    my ($maxmax, $minavg, $maxavg) = (0, 1e99, 0);
    for my $name ((map { $label[$_] } @shown), '--', 'Total') {
        if ($name eq '--') { want('|--------------+-----------------+-----------------+----------+-----------|'); next; }
        my $s = $l[$i] // '<EOF>';
        $s =~ /^\| \Q$name\E +\| +(\d+\.\d{3}) ms \| +(\d+\.\d{3}) ms \| +(\d+\.\d{5}) \| +(\d+\.\d{5}) \|$/
            or die sprintf("line %d: not a %s latency row: [%s]\n", $i + 1, $name, $s);
        my ($avg, $max, $p2, $p10) = ($1, $2, $3, $4);
        want(sprintf('| %-12s | %12.3f ms | %12.3f ms | %8.5f | %9.5f |', $name, $avg, $max, $p2, $p10));
        die "latency row $name is " . length($s) . " characters wide, not 75\n" if length($s) != 75;
        die "latency row $name: average $avg above maximum $max\n" if $avg > $max;
        die "latency row $name: % >10 s above % >2 s\n" if $p10 > $p2;
        if ($name ne 'Total') {
            $maxmax = $max if $max > $maxmax; $minavg = $avg if $avg < $minavg; $maxavg = $avg if $avg > $maxavg;
        } else {
            die "Total maximum $max is not the largest row maximum $maxmax\n" if $max != $maxmax;
            die "Total average $avg outside the rows' averages $minavg..$maxavg\n"
                if @shown && ($avg < $minavg - 0.0005 || $avg > $maxavg + 0.0005);
            die "Total row of an empty run is not zero\n" if !@shown && ($avg != 0 || $max != 0);
        }
    }
    want("`--------------+-----------------+-----------------+----------+-----------'");
    want('');
}
die sprintf("line %d: unexpected extra output: [%s]\n", $i + 1, $l[$i]) if $i < @l;
EOF

# terse.pl MB... < output: five lines, %.5f fields, the MB field of each phase as given
cat > "$SCRATCH/terse.pl" <<'EOF'
use strict; use warnings;
my @mb = @ARGV; my @name = qw(write rwrite read rread);
my @l = <STDIN>;
die "expected exactly 5 lines, got " . scalar(@l) . "\n" unless @l == 5;
for my $p (0 .. 3) {
    $l[$p] =~ /^$name[$p]:((?:\d+\.\d{5},){7}\d+\.\d{5})\n\z/ or die "line " . ($p + 1) . " is not '$name[$p]:' and 8 %.5f fields: $l[$p]";
    my @f = split /,/, $1;
    die "$name[$p]: MB $f[0], expected $mb[$p]\n" if $f[0] ne $mb[$p];
    if ($mb[$p] eq '0.00000') {
        die "$name[$p]: a skipped phase must print zeros: $l[$p]" if grep { $_ ne '0.00000' } @f;
    } else {
        die "$name[$p]: time is zero\n" if $f[1] == 0;
        die "$name[$p]: average latency above maximum\n" if $f[4] > $f[5];
    }
}
$l[4] =~ /^total:(?:\d+\.\d{5},){3}\d+\.\d{5}\n\z/ or die "line 5 is not 'total:' and 4 %.5f fields: $l[4]";
EOF

run() { # run OUT ARGS...: a successful run with nothing on stderr but warnings
    local out=$1; shift
    "$FSBENCH" tiotest "$@" > "$out" 2> "$SCRATCH/err" || fail "tiotest $*: exit $?: $(cat "$SCRATCH/err")"
    [ -z "$(not_warnings "$SCRATCH/err")" ] || fail "tiotest $*: wrote to stderr: $(cat "$SCRATCH/err")"
    no_files "$DIR"
}
layout() { # layout OUT THREADS PHASES LAT MB...
    local out=$1; shift
    perl "$SCRATCH/layout.pl" "$@" < "$out" > "$SCRATCH/perl-err" 2>&1 ||
        fail "layout of $out: $(cat "$SCRATCH/perl-err")"$'\n'"$(cat "$out")"
}

run "$SCRATCH/t1" -t 1 -f 8 -r 1500 -b 4096 -d "$DIR"
layout "$SCRATCH/t1" 1 0123 1 8 6 8 6    # 1500*4096/2^20 = 5.86
ok "-t 1 tables"
run "$SCRATCH/t2" -t 2 -f 8 -r 1500 -b 4096 -d "$DIR"
layout "$SCRATCH/t2" 2 0123 1 16 12 16 12
ok "-t 2 tables"
run "$SCRATCH/k13L" -t 2 -f 8 -r 1500 -k 1 -k 3 -L -d "$DIR"
layout "$SCRATCH/k13L" 2 02 0 16 16
ok "-k 1 -k 3 -L: Write and Read rows only, no latency table"
run "$SCRATCH/k02" -t 1 -f 8 -r 1500 -k0 -k2 -d "$DIR"
layout "$SCRATCH/k02" 1 13 1 6 6
ok "-k0 -k2: random rows only in both tables, Total row kept"
run "$SCRATCH/all" -t 1 -f 1 -r 10 -k 0 -k 1 -k 2 -k 3 -d "$DIR"
layout "$SCRATCH/all" 1 '' 1
ok "every phase skipped: empty tables with the Total row"

run "$SCRATCH/T" -t 2 -f 8 -r 1500 -b 4096 -d "$DIR" -T
perl "$SCRATCH/terse.pl" 16.00000 11.71875 16.00000 11.71875 < "$SCRATCH/T" > "$SCRATCH/perl-err" 2>&1 ||
    fail "terse: $(cat "$SCRATCH/perl-err")"$'\n'"$(cat "$SCRATCH/T")"
run "$SCRATCH/Tk" -t 1 -f 2 -r 100 -b 1024 -d "$DIR" -T -k 1 -k 3 -L
perl "$SCRATCH/terse.pl" 2.00000 0.00000 2.00000 0.00000 < "$SCRATCH/Tk" > "$SCRATCH/perl-err" 2>&1 ||
    fail "terse -k 1 -k 3: $(cat "$SCRATCH/perl-err")"$'\n'"$(cat "$SCRATCH/Tk")"
ok "terse: five lines of %.5f, skipped phases as zeros"

# the reference command, -f 64 instead of 9000
run "$SCRATCH/ref" -t 1 -f 64 -r 15000 -b 4096 -d "$DIR"
layout "$SCRATCH/ref" 1 0123 1 64 59 64 59
grep -qx '| Random Write   59 MBs |.*' "$SCRATCH/ref" || fail "Random Write row does not start '| Random Write   59 MBs |'"
grep -qx '| Random Read    59 MBs |.*' "$SCRATCH/ref" || fail "Random Read row does not start '| Random Read    59 MBs |'"
# mask every number but the Random rows' MBs; collapse whitespace as the reference is
mask='if (/^\| Random (Write|Read) \d+ MBs \|/) { my ($a, $b) = /^(.*? MBs \|)(.*)$/; $b =~ s/\d+(\.\d+)?/N/g; $_ = "$a$b\n" } else { s/\d+(\.\d+)?/N/g }'
awk 'b && /^`--------------[+]/ { print; exit } b { print } /^# tiotest -t 1 -f 9000 -r 15000 -b 4096 -d / { b = 1 }' "$REF" |
    perl -pe "$mask" > "$SCRATCH/ref-masked"
[ "$(wc -l < "$SCRATCH/ref-masked")" = 20 ] || fail "could not find the first table block in $REF"
sed '$d' "$SCRATCH/ref" | tr -s ' ' | perl -pe "$mask" > "$SCRATCH/our-masked"
diff -u "$SCRATCH/ref-masked" "$SCRATCH/our-masked" > "$SCRATCH/diff" ||
    fail "the reference command's output differs from the 2009 output (numbers masked):"$'\n'"$(cat "$SCRATCH/diff")"
ok "reference command: lines as the real tiotest output, Random rows 59 MBs"

# parsers. tiobench.pl: split each terse line on [:,], skip total, rate = MB / time,
# cpu = 100 * (usr + sys) / time (it would die dividing by a zero time)
perl -e '
    my %n; while (<>) { chomp; my ($field, @d) = split /[:,]/; next if $field eq "total";
        die "field count $field: " . scalar(@d) . "\n" unless @d == 8;
        die "$field: zero time\n" unless $d[1] > 0;
        my $rate = $d[0] / $d[1]; my $cpu = 100 * ($d[2] + $d[3]) / $d[1];
        die "$field: bad rate\n" unless $rate > 0; $n{$field}++ }
    die "phases parsed: " . join(",", sort keys %n) . "\n" unless join(",", sort keys %n) eq "read,rread,rwrite,write";
' "$SCRATCH/T" > "$SCRATCH/perl-err" 2>&1 || fail "tiobench.pl-style parse of the terse output: $(cat "$SCRATCH/perl-err")"
# table scrapers: the regexes must find 4 rate rows and 5 latency rows in each block of the
# reference output, and the same in ours
scrape='
    my ($r, $l) = (0, 0);
    while (<>) {
        $r++ if /^\|\s+(Write|Random Write|Read|Random Read)\s+(\d+)\s+MBs\s+\|\s+([\d.]+)\s+s\s+\|\s+([\d.]+)\s+MB\/s\s+\|\s+([\d.]+)\s+%\s+\|\s+([\d.]+)\s+%\s+\|/;
        $l++ if /^\|\s+(Write|Random Write|Read|Random Read|Total)\s+\|\s+([\d.]+)\s+ms\s+\|\s+([\d.]+)\s+ms\s+\|\s+([\d.]+)\s+\|\s+([\d.]+)\s+\|/;
    }
    print "$r $l\n";'
[ "$(perl -e "$scrape" "$REF")" = "16 20" ] || fail "the scraper regexes do not read the reference output (test bug)"
[ "$(perl -e "$scrape" "$SCRATCH/ref")" = "4 5" ] || fail "table scrapers do not find 4 rate rows and 5 latency rows"
[ "$(perl -e "$scrape" "$SCRATCH/t2")" = "4 5" ] || fail "table scrapers fail on the -t 2 output"
ok "tiobench.pl terse split and table regexes parse the output"
