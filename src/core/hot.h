/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FSB_HOT marks a function that runs once or more for every request of a timed phase (the
 * engines' submit and reap, a workload's op loop). GCC puts such functions in .text.hot,
 * which the linker lays out together, so a request's code spans two or three pages instead
 * of five or more spread over the binary. It matters on a kernel that flushes the TLB on
 * every entry (page-table isolation without PCID, as in the PVM guests CI runs on): each
 * code page the path comes back to after io_uring_enter is a TLB miss again, on every
 * request. With the engines' dispatch inlined (engine.h), tiotest --engine io_uring at depth 1
 * pinned went from 0.917 to 0.944 x the bare ring (sequential reads) and from 0.950 to 0.957
 * (random); bench/README.md, "Where fsbench's io_uring depth-1 time goes". */
#ifndef FSB_CORE_HOT_H
#define FSB_CORE_HOT_H

#define FSB_HOT __attribute__((hot))

#endif
