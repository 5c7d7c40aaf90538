#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# masks what varies between runs of mdtest's output: dates, the command line, the path and
# filesystem lines, and each SUMMARY value (kept at its width)
while (<>) {
    s/^-- (started|finished) at \d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d --$/-- $1 at DATE --/;
    s/^Command line used: .*/Command line used: CMD/;
    s/^(Path {16}: ).*/$1PATH/;
    s/^(FS {18}: )\d+\.\d (GiB|TiB)   Used FS: +\d+\.\d%   Inodes: \d+\.\d Mi   Used Inodes: +\d+\.\d%$/$1SIZE/;
    if (/^(.{26})(.{14}) (.{14}) (.{14}) (.{14})$/) {
        my ($name, @v) = ($1, $2, $3, $4, $5);
        $_ = $name . join(" ", map { sprintf("%14s", "V") } 1..4) . "\n" if join("", @v) =~ /^( *\d+\.\d{3}){4}$/;
    }
    print;
}
