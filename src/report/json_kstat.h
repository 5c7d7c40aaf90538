/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON for the kernel-side figures: device resolution, kstat deltas, warnings, profiles. */
#ifndef FSB_REPORT_JSON_KSTAT_H
#define FSB_REPORT_JSON_KSTAT_H
#include <jansson.h>

#include "core/warn.h"
#include "sys/blockdev.h"
#include "sys/kstat.h"
#include "core/perf_profile.h"

json_t *blockdev_json(const struct blockdev *b);
json_t *kstat_json(const struct kstat_delta *d);
json_t *warn_json(const struct warn_list *l);      /* an array of {id, message} */
json_t *perf_json(const struct perf_profile *p);   /* every entry, other processes, folded stacks */
#endif
