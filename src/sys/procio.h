/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the kernel accounted for this process's I/O: /proc/self/io. */
#ifndef FSB_SYS_PROCIO_H
#define FSB_SYS_PROCIO_H
#include <stdint.h>

struct procio {
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
};

int procio_read(struct procio *io);        /* 0 or -errno */
void procio_delta(const struct procio *a, const struct procio *b, struct procio *d);
#endif
