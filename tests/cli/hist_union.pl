#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# hist_union.pl: reads latency objects (fsbench JSON: count, min_ns, max_ns, buckets
# [[lo, hi, count], ...]) one per line, the first being the merged one, the others its parts;
# checks that the merged histogram is the parts' union: buckets added up, count, min and max,
# and p50/p90/p99/p99.9 recomputed from the union as core/hist.c does (nearest rank, bucket
# midpoint clamped to [min, max]). Prints what differs; exit 1 then.
use strict; use warnings;
use JSON::PP;
# Groups: a line "# WHAT" starts a group of its own (the first object after it the merged one),
# checked on its own; its failures are printed under "WHAT", so that one perl checks all of a
# test's histograms. Without such lines, the whole input is one group.
my (@groups, $cur);
for (<STDIN>) {
    if (/^# (.*)/) { push @groups, $cur = [$1, []]; next; }
    next unless /\S/;
    push @groups, $cur = ['', []] unless $cur;
    push @{$cur->[1]}, decode_json($_);
}
my $failed = 0;
@groups or print("no histograms\n"), exit(1);
for my $g (@groups) {
    my @bad = check(@{$g->[1]});
    next unless @bad;
    $failed = 1;
    print "$g->[0]\n" if length $g->[0];
    print "$_\n" for @bad;
}
exit($failed);

# check MERGED PARTS...: what differs
sub check {
    my ($m, @h) = @_;
    return ("no merged histogram") unless $m;
    my (%b, $n, $min, $max);
    $n = 0;
    for my $p (@h) {
        next unless $p->{count};
        $b{$_->[0]} += $_->[2], $b{"hi$_->[0]"} = $_->[1] for @{$p->{buckets}};
        $n += $p->{count};
        $min = $p->{min_ns} if !defined $min || $p->{min_ns} < $min;
        $max = $p->{max_ns} if !defined $max || $p->{max_ns} > $max;
    }
    my @bad;
    push @bad, "count $m->{count} != $n" if $m->{count} != $n;
    push @bad, "min $m->{min_ns} != $min" if $n && $m->{min_ns} != $min;
    push @bad, "max $m->{max_ns} != $max" if $n && $m->{max_ns} != $max;
    my %mb = map { $_->[0] => $_->[2] } @{$m->{buckets}};
    for my $lo (grep { !/^hi/ } keys %b) {
        push @bad, "bucket $lo: $mb{$lo} != $b{$lo}" if ($mb{$lo} // 0) != $b{$lo};
    }
    push @bad, "buckets: " . scalar(keys %mb) . " merged" if scalar(keys %mb) != scalar(grep { !/^hi/ } keys %b);
    my @lo = sort { $a <=> $b } grep { !/^hi/ } keys %b;
    for my $p ([50, 'p50_ns'], [90, 'p90_ns'], [99, 'p99_ns'], [99.9, 'p99_9_ns']) {
        my ($pct, $key) = @$p;
        next unless $n && exists $m->{$key};
        my $rank = int($pct / 100 * $n);
        $rank++ if $rank < $pct / 100 * $n;
        $rank = 1 if $rank < 1;
        my ($seen, $v) = (0, $max);
        for my $lo (@lo) {
            $seen += $b{$lo};
            next if $seen < $rank;
            my $hi = $b{"hi$lo"};
            $v = $lo + int(($hi - $lo) / 2);
            $v = $min if $v < $min;
            $v = $max if $v > $max;
            last;
        }
        push @bad, "$key $m->{$key} != $v" if $m->{$key} != $v;
    }
    return @bad;
}
