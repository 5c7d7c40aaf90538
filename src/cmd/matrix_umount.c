/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unmount after each run, timed (core/afterrun.h: after.umount_s): the undo of a mount
 * entry keeps umount2's own time in the entry, and the run gets it as "umount_s", which the
 * report reads back as the run's figure. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "cmd/matrix_int.h"
#include "sys/fsimage.h"

int mxc_umount_timed(json_t *e, const char *target, const char *source, char *how, size_t len)
{
	uint64_t ns = 0;
	int rc = fsimage_umount_ns(target, source, &ns, how, len);

	if (!rc && ns)
		json_object_set_new(e, "umount_ns", json_integer((json_int_t)ns));
	return rc;
}

void mxc_umount_note(json_t *run, const json_t *undo, size_t from)
{
	double s = 0;
	bool any = false;

	/* the run's own entries: its filesystem's mount */
	for (size_t i = from; i < json_array_size(undo); i++) {
		const json_t *e = json_array_get(undo, i), *ns = json_object_get(e, "umount_ns");

		if (!json_is_integer(ns) ||
		    strcmp(json_string_value(json_object_get(e, "kind")) ?: "", "mount"))
			continue;
		s += (double)json_integer_value(ns) / 1e9;
		any = true;
	}
	if (any)
		json_object_set_new(run, "umount_s", json_real(round(s * 1e6) / 1e6));
}
