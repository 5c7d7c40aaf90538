/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options table: each option is declared once (letter, long name, type, range, help) and
 * drives parsing, range checks, --help and the man page. Values land in a config struct at
 * the declared offset; defaults are whatever the struct holds before parsing. */
#ifndef FSB_OPT_H
#define FSB_OPT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OPT_LIST_MAX 64

enum opt_type {
	OPT_FLAG,        /* bool */
	OPT_UINT,        /* uint64_t, digits only */
	OPT_SIZE,        /* uint64_t bytes; a bare number counts in .unit; long form takes k/m/g/t */
	OPT_STR,         /* const char * (points into argv) */
	OPT_STRS,        /* struct opt_strs: repeatable; the first use replaces the default list */
	OPT_UINTS,       /* struct opt_uints: repeatable */
	OPT_HELP,        /* int: 1 after the short form, 2 after the long form */
	OPT_TIME,        /* uint64_t ns: a number with a unit ns/us/ms/s/m/h, bare = seconds */
	OPT_UINT_OPTIONAL, /* uint64_t, long form only, value optional: --name=N sets N, --name
			    * alone sets .unit (the value it implies); 0 when not given */
};

struct opt_strs {
	unsigned n;
	bool user;               /* set by the command line (the default list was replaced) */
	const char *v[OPT_LIST_MAX];
};

struct opt_uints {
	unsigned n;
	uint64_t v[OPT_LIST_MAX];
};

struct opt {
	char sname;              /* 0: long only */
	const char *lname;       /* NULL: short only */
	enum opt_type type;
	size_t off;              /* offsetof the field in the config struct */
	const char *arg;         /* argument name shown in help, NULL for flags */
	uint64_t min, max;       /* numbers: inclusive range (sizes in bytes) */
	/* OPT_SIZE: bytes per bare-number unit, 0 means 1; OPT_UINT_OPTIONAL: the value the bare
	 * option implies; OPT_STR, OPT_STRS, OPT_FLAG: their OPT_F_* flags (opt_flags()), in this
	 * slot so that every table's positional entries stay as they are */
	uint64_t unit;
	unsigned max_n;          /* lists: most entries (<= OPT_LIST_MAX) */
	const char *help;
};

/* What an option's value is to the code around the parser (workload/workload.h): the one
 * declaration of the directories a run works in, which the driver (kernel view, environment),
 * fsbench-mpi (per-process directories) and fsbench matrix (the target it supplies) read. */
enum opt_flag {
	OPT_F_TARGET = 1u << 0,         /* OPT_STR/OPT_STRS: the directories the run works in */
	OPT_F_TARGET_SHARED = 1u << 1,  /* ... which a job's processes share (no DIR/rank.R) */
	OPT_F_NAMES_DEVICES = 1u << 2,  /* OPT_FLAG: when set, the target option names devices */
};

struct opt_cmd {
	const char *name;        /* "tiotest" */
	const char *summary;     /* one line */
	const struct opt *opts;  /* terminated by an entry with neither sname nor lname */
};

/* Parses argv[1..argc-1] into cfg. On error returns -1 with a one-line message (no program
 * name, no newline) in err. Positional arguments are errors. */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *cfg, char *err, size_t errlen);
/* Strict number parsers shared with other input (digits only; sizes with optional suffix). */
int opt_parse_uint(const char *s, uint64_t *out);
int opt_parse_size(const char *s, uint64_t unit, bool suffixes, uint64_t *out);
int opt_parse_time(const char *s, uint64_t *ns);
/* For the text of the table (report/opt_text.h): the terminating entry, whether an option
 * takes a value, "-f, --size=MIB", and a default as the user would write it ("" for none). */
bool opt_is_end(const struct opt *o);
/* The OPT_F_* flags of an OPT_STR, OPT_STRS or OPT_FLAG entry; 0 for the numbers */
static inline uint64_t opt_flags(const struct opt *o)
{
	return o->type == OPT_STR || o->type == OPT_STRS || o->type == OPT_FLAG ? o->unit : 0;
}
bool opt_takes_arg(const struct opt *o);
bool opt_arg_optional(const struct opt *o);
void opt_format_names(const struct opt *o, char *buf, size_t len);
void opt_format_default(const struct opt *o, const void *defaults, char *buf, size_t len);
#endif
