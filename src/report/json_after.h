/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON for the after-run tools (sys/fsck.h, sys/freespace.h): what fsbench __after writes, and
 * what fsbench matrix keeps per cell. Absent figures are null with the reason, never zeros. */
#ifndef FSB_REPORT_JSON_AFTER_H
#define FSB_REPORT_JSON_AFTER_H
#include <jansson.h>

#include "sys/fsck.h"
#include "sys/freespace.h"

/* {"check": "fsck", "fstype", "device", "tool", "command", "verdict" ("clean", "errors",
 *  "failed", "absent"), "finding" (true for errors and failed), "reason", "exit_status",
 *  "signal", "timeout_s" (the time limit), "timed_out", "wall_ns", "cpu_usr_s", "cpu_sys_s",
 *  "max_rss_kib", "messages" [first lines], "message_lines", "output_bytes"} */
json_t *fsck_json(const struct fsck_result *r);
/* {"check": "freespace", "fstype", "device", "tool", "command", "absent" (reason or null),
 *  "device_busy", "block_bytes", "total_bytes", "free_bytes", "free_extents",
 *  "largest_free_extent_bytes", "histogram": [{"min_bytes", "max_bytes", "extents",
 *  "free_bytes"}], "exit_status", "signal", "timeout_s", "timed_out", "wall_ns", "cpu_usr_s",
 *  "cpu_sys_s", "max_rss_kib", "output_bytes"} */
json_t *freespace_json(const struct freespace_result *r);
#endif
