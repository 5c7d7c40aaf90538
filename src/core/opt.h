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
	OPT_GROUPS,      /* not an option: where the command's option groups (struct opt_groups,
			  * opt_cmd.groups) sit in the table; off: their state (see below) */
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
	OPT_F_DIRECT = 1u << 3,         /* OPT_FLAG: when set, the run's transfers are O_DIRECT */
};

/* Option groups: options a command accepts that are declared elsewhere, in tables of their
 * own (each I/O engine's, engine/engine.h; fio's per-engine options). One of them is in use
 * at a time: its values share one area of the config, and giving options of two groups is
 * bad input. The command's table holds an OPT_GROUPS entry where they belong (its place
 * orders --help's and the JSON's lists); the entry's off is the groups' place in the config:
 * struct opt_group_state at off + given_off, the values at off + values_off. A group's options
 * are long only, and their offsets are into the group's values. The code that selects the
 * group (engine_select) checks that the options given are the selected group's. */
struct opt_group {
	const char *name;        /* "io_uring" */
	const struct opt *opts;  /* NULL: this one has no options */
	const void *defaults;    /* its values before parsing: size bytes */
	size_t size;
};

struct opt_groups {
	const char *kind;        /* "engine": messages and headings call a group "the engine X" */
	const char *select;      /* "engine": the option that selects a group (--engine X) */
	bool (*at)(unsigned i, struct opt_group *g);   /* the i-th group; false past the end */
	size_t given_off, values_off, values_size;
};

struct opt_group_state {
	unsigned owner;          /* 1 + the group whose values the area holds; 0: none yet */
	unsigned given;          /* 1 + its option the command line gave first; 0: none given */
};

struct opt_cmd {
	const char *name;        /* "tiotest" */
	const char *summary;     /* one line */
	const struct opt *opts;  /* terminated by an entry with neither sname nor lname */
	const struct opt_groups *groups;   /* what its OPT_GROUPS entry stands for, or NULL */
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
/* The command's OPT_GROUPS entry, NULL when it has none (or no opt_cmd.groups). */
const struct opt *opt_groups_entry(const struct opt_cmd *c);
/* The i-th group of c's groups into *g, false past the end (g->opts NULL: it has none). */
bool opt_group_at(const struct opt_cmd *c, unsigned i, struct opt_group *g);
/* Where group i's option values are for output (help's defaults, the JSON): in cfg when the
 * area holds that group's, else the group's defaults. */
const void *opt_group_values(const struct opt_cmd *c, const void *cfg, unsigned i, const struct opt_group *g);
/* The state and the values area of cfg's groups (NULL when c has none). */
struct opt_group_state *opt_group_state(const struct opt_cmd *c, void *cfg);
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
