/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arrays of a JSON result kept out of memory: fs_mark's iterations, which a fill has by the
 * thousand (a few tens of KiB each as jansson values). Each element is written as it
 * completes, already in the document's text form, to an unnamed file (O_TMPFILE) beside the
 * result, else in $TMPDIR or /tmp, else in memory (memfd); nothing is ever left behind.
 *
 * The document names a spooled array by a marker string in its place (json_spool_marker: one
 * per segment, a segment being one run's array). json_spool_dumpf writes the document with
 * every marker replaced by its array, byte for byte what json_dumpf(JSON_DOC_FLAGS) writes for
 * the same document with the arrays in memory: an element is dumped at depth 0 and re-indented
 * as it is copied (jansson writes no raw line break inside a string), so the document is the
 * same and only one element's text is ever in memory. Readers that need the values (--csv)
 * load one element at a time (json_spool_foreach).
 *
 * A segment's elements are contiguous in the file: json_spool_add to a segment that already
 * has elements while a later segment has some is -EINVAL (runs complete one after another). */
#ifndef FSB_REPORT_JSON_SPOOL_H
#define FSB_REPORT_JSON_SPOOL_H
#include <jansson.h>
#include <stdio.h>

/* how every result document is written (cmd/outputs.c) and so how its elements are spooled */
#define JSON_DOC_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

struct json_spool;

/* A spool of nseg segments, its file beside near (a result's path; NULL, "-" or a path under
 * /dev or /proc: $TMPDIR or /tmp). NULL when out of memory or no file of any kind could be
 * made (errno says why). */
struct json_spool *json_spool_open(const char *near, unsigned nseg);
/* Appends v's text to segment seg. 0 or -errno; the first failure is kept and every later
 * call and json_spool_dumpf return it. */
int json_spool_add(struct json_spool *s, unsigned seg, const json_t *v);
/* A new segment after the others (a document's arrays beside the ones it was opened for: the
 * "mpi" object's phases): its number, or -ENOMEM. */
int json_spool_new_segment(struct json_spool *s);
/* A new string value that stands for segment seg's array in a document (NULL: no memory). */
json_t *json_spool_marker(const struct json_spool *s, unsigned seg);
/* The segment v stands for, or -1 when v is not one of s's markers. s may be NULL. */
int json_spool_seg(const struct json_spool *s, const json_t *v);
/* Elements in segment seg. */
size_t json_spool_count(const struct json_spool *s, unsigned seg);
/* Calls fn for each element of segment seg in order, loaded one at a time (fn does not keep
 * it); stops at fn's first non-zero return and returns it. 0, or -errno (-EIO: unreadable). */
int json_spool_foreach(const struct json_spool *s, unsigned seg,
		       int (*fn)(void *arg, size_t i, const json_t *v), void *arg);
/* root as JSON_DOC_FLAGS text into f, each of s's markers replaced by its array (s NULL: as
 * json_dumpf). 0, or -errno (the spool's first failure, -ENOMEM, or -EIO for f: its error
 * indicator and errno say more). */
int json_spool_dumpf(const json_t *root, FILE *f, const struct json_spool *s);
void json_spool_free(struct json_spool *s);

/* Text kept out of memory the same way (fs_mark's --sysstats rows, one per iteration, printed
 * under the run's classic output): a stream for writing and reading back on an unnamed file
 * placed as json_spool_open places its file. NULL with errno when none can be made. */
FILE *json_spool_text(const char *near);
/* Copies everything written to f (a json_spool_text stream) so far to out. 0, or -EIO when f
 * could not be read back or out not written. */
int json_spool_text_copy(FILE *f, FILE *out);
#endif
