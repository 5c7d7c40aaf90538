/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-line reason a function leaves in its caller's buffer: errmsg(err, errlen, "...")
 * formats it and returns -1, so a check reads `return errmsg(err, errlen, "x is %s", why);`. */
#ifndef FSB_CORE_ERRMSG_H
#define FSB_CORE_ERRMSG_H
#include <stddef.h>

int errmsg(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
