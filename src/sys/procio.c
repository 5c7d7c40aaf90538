/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/self/io: bytes and syscalls the kernel accounted for this process (all threads). */
#include "sys/procio.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

int procio_read(struct procio *io)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "rchar", offsetof(struct procio, rchar) },
		{ "wchar", offsetof(struct procio, wchar) },
		{ "syscr", offsetof(struct procio, syscr) },
		{ "syscw", offsetof(struct procio, syscw) },
		{ "read_bytes", offsetof(struct procio, read_bytes) },
		{ "write_bytes", offsetof(struct procio, write_bytes) },
		{ "cancelled_write_bytes", offsetof(struct procio, cancelled_write_bytes) },
	};
	char line[128];
	FILE *f;

	memset(io, 0, sizeof(*io));
	f = fopen("/proc/self/io", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char key[64];
		unsigned long long v;

		if (sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i].key))
				*(uint64_t *)((char *)io + keys[i].off) = v;
	}
	fclose(f);
	return 0;
}

void procio_delta(const struct procio *a, const struct procio *b, struct procio *d)
{
	d->rchar = b->rchar - a->rchar;
	d->wchar = b->wchar - a->wchar;
	d->syscr = b->syscr - a->syscr;
	d->syscw = b->syscw - a->syscw;
	d->read_bytes = b->read_bytes - a->read_bytes;
	d->write_bytes = b->write_bytes - a->write_bytes;
	d->cancelled_write_bytes = b->cancelled_write_bytes - a->cancelled_write_bytes;
}
