/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test hooks: behaviours the tests switch on through the environment (an io_uring opcode
 * hidden, the test engines, perf denied, short transfers). They exist only in the test build
 * (-DFSB_TEST_HOOKS: build/fsbench-test and the unit tests, Makefile); in the product
 * testhook_env() is NULL and the variable's name is not even in the binary. A source file that
 * includes this header is compiled twice, once for each build. */
#ifndef FSB_CORE_TESTHOOK_H
#define FSB_CORE_TESTHOOK_H

#include <stdlib.h>

#ifdef FSB_TEST_HOOKS
#define testhook_env(name) getenv(name)
#define testhook_str(s) s
#else
#define testhook_env(name) ((const char *)NULL)
#define testhook_str(s) ""
#endif

#endif
