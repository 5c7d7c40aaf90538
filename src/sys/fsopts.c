/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mkfs and mount option grammars of the experiment runner (sys/fsopts.h). */
#include "sys/fsopts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "sys/mountlib.h"
#include "core/matrix.h"
#include "core/errmsg.h"
#include "core/quote.h"
#include "core/words.h"

/* ---- mkfs ------------------------------------------------------------------------------- */

/* The shape of an option's argument. None of them can hold a path: a value never begins with
 * '/' or '-' (but A_SNUM's sign), and suboption values hold no '/', '=' or ','. */
enum arg {
	A_NONE,          /* a flag */
	A_NUM,           /* a number or a size: 4096, 512M, 0x1000, 2b */
	A_SNUM,          /* the same with an optional leading '-' (mke2fs -b -4096: at least) */
	A_WORD,          /* names, a UUID, a profile: letters, digits and _ . : + @ % ^ , - */
	A_TEXT,          /* a label: printable characters */
	A_FEATURES,      /* [^]feature[,...] */
	A_SUBOPTS,       /* name[=value][,...] from the option's table */
};

/* The shape of a suboption's value. */
enum sub {
	S_FLAG,          /* name */
	S_OPTBOOL,       /* name or name=0|1 */
	S_NUM,           /* name=A_NUM */
	S_WORD,          /* name=A_WORD without ',' */
	S_OPTWORD,       /* name or name=A_WORD without ',' */
};

struct subopt {
	const char *name;
	enum sub v;
	const char *refused;     /* why the suboption is refused; NULL: accepted */
};

struct mkopt {
	char sname;              /* the short option, 0 for none */
	const char *lname;       /* the long option (getopt_long programs), NULL for none */
	enum arg arg;
	const struct subopt *subs;
	const char *refused;     /* why the option is refused; NULL: accepted */
};

#define NOPATH "fsbench passes no paths to mkfs"
#define OTHERDEV "it names another device; fsbench makes filesystems on its own target only"

/* mke2fs(8), e2fsprogs 1.47: getopt "b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:ST:U:Vz:" */
static const struct subopt ext_E[] = {
	{ "encoding", S_OPTWORD, NULL }, { "encoding_flags", S_WORD, NULL },
	{ "mmp_update_interval", S_NUM, NULL }, { "stride", S_NUM, NULL },
	{ "stripe_width", S_NUM, NULL }, { "stripe-width", S_NUM, NULL },
	{ "offset", S_NUM, NULL }, { "resize", S_NUM, NULL },
	{ "lazy_itable_init", S_OPTBOOL, NULL }, { "lazy_journal_init", S_OPTBOOL, NULL },
	{ "assume_storage_prezeroed", S_OPTBOOL, NULL }, { "no_copy_xattrs", S_FLAG, NULL },
	{ "num_backup_sb", S_NUM, NULL }, { "packed_meta_blocks", S_OPTBOOL, NULL },
	{ "root_owner", S_OPTWORD, NULL }, { "test_fs", S_FLAG, NULL },
	{ "orphan_file_size", S_NUM, NULL }, { "discard", S_FLAG, NULL }, { "nodiscard", S_FLAG, NULL },
	{ "quotatype", S_WORD, NULL },
	{ "android_sparse", S_FLAG, "it writes an Android sparse file instead of the device" },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt ext_J[] = {
	{ "size", S_NUM, NULL }, { "fast_commit_size", S_NUM, NULL }, { "location", S_NUM, NULL },
	{ "device", S_WORD, "an external journal: " OTHERDEV },
	{ NULL, S_FLAG, NULL },
};
static const struct mkopt ext_opts[] = {
	{ 'b', NULL, A_SNUM, NULL, NULL }, { 'C', NULL, A_NUM, NULL, NULL },
	{ 'D', NULL, A_NONE, NULL, NULL }, { 'e', NULL, A_WORD, NULL, NULL },
	{ 'E', NULL, A_SUBOPTS, ext_E, NULL }, { 'g', NULL, A_NUM, NULL, NULL },
	{ 'G', NULL, A_NUM, NULL, NULL }, { 'i', NULL, A_NUM, NULL, NULL },
	{ 'I', NULL, A_NUM, NULL, NULL }, { 'j', NULL, A_NONE, NULL, NULL },
	{ 'J', NULL, A_SUBOPTS, ext_J, NULL }, { 'K', NULL, A_NONE, NULL, NULL },
	{ 'L', NULL, A_TEXT, NULL, NULL }, { 'm', NULL, A_NUM, NULL, NULL },
	{ 'N', NULL, A_NUM, NULL, NULL }, { 'o', NULL, A_WORD, NULL, NULL },
	{ 'O', NULL, A_FEATURES, NULL, NULL }, { 'q', NULL, A_NONE, NULL, NULL },
	{ 'r', NULL, A_NUM, NULL, NULL }, { 's', NULL, A_NUM, NULL, NULL },
	{ 'T', NULL, A_WORD, NULL, NULL }, { 'U', NULL, A_WORD, NULL, NULL },
	{ 'v', NULL, A_NONE, NULL, NULL },
	{ 'c', NULL, A_NONE, NULL, "it runs badblocks(8) over the device" },
	{ 'd', NULL, A_TEXT, NULL, "it copies a directory into the filesystem; " NOPATH },
	{ 'F', NULL, A_NONE, NULL, "the runner gives -F itself" },
	{ 'l', NULL, A_TEXT, NULL, "it reads a bad-blocks file; " NOPATH },
	{ 'M', NULL, A_TEXT, NULL, "it records a directory path; " NOPATH },
	{ 'n', NULL, A_NONE, NULL, "it makes no filesystem" },
	{ 'R', NULL, A_TEXT, NULL, "the old spelling of -E: use -E" },
	{ 'S', NULL, A_NONE, NULL, "it writes superblocks only (a recovery tool)" },
	{ 't', NULL, A_TEXT, NULL, "the filesystem type is the fs axis'" },
	{ 'V', NULL, A_NONE, NULL, "it makes no filesystem" },
	{ 'z', NULL, A_TEXT, NULL, "it writes an undo file; " NOPATH },
	{ 0, NULL, A_NONE, NULL, NULL },
};

/* mkfs.xfs(8), xfsprogs 6.1: getopt_long "b:c:d:i:l:L:m:n:KNp:qr:s:CfV" (long: --unsupported) */
static const struct subopt xfs_b[] = { { "size", S_NUM, NULL }, { NULL, S_FLAG, NULL } };
static const struct subopt xfs_d[] = {
	{ "agcount", S_NUM, NULL }, { "agsize", S_NUM, NULL }, { "cowextsize", S_NUM, NULL },
	{ "size", S_NUM, NULL }, { "sunit", S_NUM, NULL }, { "su", S_NUM, NULL },
	{ "swidth", S_NUM, NULL }, { "sw", S_NUM, NULL }, { "noalign", S_FLAG, NULL },
	{ "sectsize", S_NUM, NULL }, { "rtinherit", S_OPTBOOL, NULL },
	{ "projinherit", S_NUM, NULL }, { "extszinherit", S_NUM, NULL },
	{ "daxinherit", S_OPTBOOL, NULL },
	{ "name", S_WORD, "it names the file to make the filesystem in; " NOPATH },
	{ "file", S_OPTBOOL, "the data section as a regular file: the runner names its target" },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_i[] = {
	{ "size", S_NUM, NULL }, { "perblock", S_NUM, NULL }, { "maxpct", S_NUM, NULL },
	{ "align", S_OPTBOOL, NULL }, { "attr", S_NUM, NULL }, { "projid32bit", S_OPTBOOL, NULL },
	{ "sparse", S_OPTBOOL, NULL }, { "nrext64", S_OPTBOOL, NULL },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_l[] = {
	{ "agnum", S_NUM, NULL }, { "internal", S_OPTBOOL, NULL }, { "size", S_NUM, NULL },
	{ "version", S_NUM, NULL }, { "sunit", S_NUM, NULL }, { "su", S_NUM, NULL },
	{ "lazy-count", S_OPTBOOL, NULL }, { "sectsize", S_NUM, NULL },
	{ "logdev", S_WORD, "an external log: " OTHERDEV },
	{ "name", S_WORD, "an external log file; " NOPATH },
	{ "file", S_OPTBOOL, "an external log file; " NOPATH },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_m[] = {
	{ "bigtime", S_OPTBOOL, NULL }, { "crc", S_OPTBOOL, NULL }, { "finobt", S_OPTBOOL, NULL },
	{ "inobtcount", S_OPTBOOL, NULL }, { "rmapbt", S_OPTBOOL, NULL },
	{ "reflink", S_OPTBOOL, NULL }, { "uuid", S_WORD, NULL },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_n[] = {
	{ "size", S_NUM, NULL }, { "version", S_WORD, NULL }, { "ftype", S_OPTBOOL, NULL },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_r[] = {
	{ "extsize", S_NUM, NULL }, { "size", S_NUM, NULL }, { "noalign", S_FLAG, NULL },
	{ "rtdev", S_WORD, "a realtime section: " OTHERDEV },
	{ "name", S_WORD, "a realtime file; " NOPATH },
	{ "file", S_OPTBOOL, "a realtime file; " NOPATH },
	{ NULL, S_FLAG, NULL },
};
static const struct subopt xfs_s[] = {
	{ "size", S_NUM, NULL }, { "sectsize", S_NUM, NULL }, { NULL, S_FLAG, NULL },
};
static const struct mkopt xfs_opts[] = {
	{ 'b', NULL, A_SUBOPTS, xfs_b, NULL }, { 'd', NULL, A_SUBOPTS, xfs_d, NULL },
	{ 'i', NULL, A_SUBOPTS, xfs_i, NULL }, { 'l', NULL, A_SUBOPTS, xfs_l, NULL },
	{ 'm', NULL, A_SUBOPTS, xfs_m, NULL }, { 'n', NULL, A_SUBOPTS, xfs_n, NULL },
	{ 'r', NULL, A_SUBOPTS, xfs_r, NULL }, { 's', NULL, A_SUBOPTS, xfs_s, NULL },
	{ 'L', NULL, A_TEXT, NULL, NULL }, { 'K', NULL, A_NONE, NULL, NULL },
	{ 'q', NULL, A_NONE, NULL, NULL },
	{ 'c', NULL, A_TEXT, NULL, "it reads a configuration file; " NOPATH },
	{ 'C', NULL, A_NONE, NULL, "the runner gives -f itself" },
	{ 'f', NULL, A_NONE, NULL, "the runner gives -f itself" },
	{ 'N', NULL, A_NONE, NULL, "it makes no filesystem" },
	{ 'p', NULL, A_TEXT, NULL, "it reads a prototype file; " NOPATH },
	{ 'V', NULL, A_NONE, NULL, "it makes no filesystem" },
	{ 0, NULL, A_NONE, NULL, NULL },
};

/* mkfs.btrfs(8), btrfs-progs 6.2: getopt_long "A:b:fl:n:s:m:d:L:R:O:r:U:VvMKq" */
static const struct mkopt btrfs_opts[] = {
	{ 'b', "byte-count", A_NUM, NULL, NULL }, { 0, "csum", A_WORD, NULL, NULL },
	{ 0, "checksum", A_WORD, NULL, NULL }, { 'd', "data", A_WORD, NULL, NULL },
	{ 'm', "metadata", A_WORD, NULL, NULL }, { 'M', "mixed", A_NONE, NULL, NULL },
	{ 'n', "nodesize", A_NUM, NULL, NULL }, { 's', "sectorsize", A_NUM, NULL, NULL },
	{ 'L', "label", A_TEXT, NULL, NULL }, { 'K', "nodiscard", A_NONE, NULL, NULL },
	{ 'O', "features", A_FEATURES, NULL, NULL }, { 'R', "runtime-features", A_FEATURES, NULL, NULL },
	{ 'U', "uuid", A_WORD, NULL, NULL }, { 'q', "quiet", A_NONE, NULL, NULL },
	{ 'v', "verbose", A_NONE, NULL, NULL },
	{ 'f', "force", A_NONE, NULL, "the runner gives -f itself" },
	{ 'r', "rootdir", A_TEXT, NULL, "it copies a directory into the filesystem; " NOPATH },
	{ 0, "shrink", A_NONE, NULL, "it goes with --rootdir, which fsbench does not pass" },
	{ 'V', "version", A_NONE, NULL, "it makes no filesystem" },
	{ 0, "help", A_NONE, NULL, "it makes no filesystem" },
	{ 0, NULL, A_NONE, NULL, NULL },
};

static const struct {
	const char *type;
	const struct mkopt *opts;
	bool long_opts;
} grammars[] = {
	{ "ext2", ext_opts, false }, { "ext3", ext_opts, false }, { "ext4", ext_opts, false },
	{ "xfs", xfs_opts, false }, { "btrfs", btrfs_opts, true },
};

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool num_ok(const char *v)
{
	if (!(*v >= '0' && *v <= '9'))
		return false;
	for (; *v; v++)
		if (!is_alnum(*v) && *v != '.')
			return false;
	return true;
}

/* comma: whether ',' may appear (a list the program splits itself, mke2fs -T) */
static bool word_ok(const char *v, bool comma)
{
	if (!is_alnum(*v) && *v != '_' && *v != '^')
		return false;
	for (; *v; v++)
		if (!is_alnum(*v) && !strchr("_.:+@%^-", *v) && !(comma && *v == ','))
			return false;
	return true;
}

static bool text_ok(const char *v)
{
	if (!*v || *v == '-' || *v == '/')
		return false;
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return false;
	return true;
}

static bool features_ok(const char *v)
{
	if (!*v)
		return false;
	while (*v) {
		size_t n;

		if (*v == '^')
			v++;
		n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
		if (!n || *v == '-' || (v[n] && v[n] != ','))
			return false;
		/* mkfs.btrfs -O list-all lists them and makes no filesystem */
		if (n == 8 && !strncmp(v, "list-all", 8))
			return false;
		v += n;
		if (*v == ',' && !*++v)
			return false;
	}
	return true;
}

static const char *arg_what(enum arg a)
{
	switch (a) {
	case A_NUM:
		return "a number or size (digits, then letters or '.': 4096, 512M, 0x1000)";
	case A_SNUM:
		return "a number or size (4096, -4096)";
	case A_WORD:
		return "a name (letters, digits and _ . : + @ % ^ , -)";
	case A_TEXT:
		return "a label (printable characters, not beginning with '-' or '/')";
	case A_FEATURES:
		return "a feature list ([^]name,...)";
	default:
		return "a value";
	}
}

/* name[=value][,...]: each from subs with its value's shape */
static int subopts_check(const char *prog, const char *opt, const struct subopt *subs, const char *v,
			 char *err, size_t errlen)
{
	char q[QUOTE_MAX], item[256];

	if (!*v) {
		errmsg(err, errlen, "%s: option '%s' needs name[=value][,...]", prog, opt);
		return -EINVAL;
	}
	while (*v) {
		size_t n = strcspn(v, ","), kn;
		const struct subopt *s;
		const char *val;
		bool ok;

		if (!n || n >= sizeof(item)) {
			snprintf(item, sizeof(item), "%.*s", (int)(n < 64 ? n : 64), v);
			errmsg(err, errlen, "%s: option '%s': '%s' is not name[=value]", prog, opt,
			       quote_str(item, q, sizeof(q)));
			return -EINVAL;
		}
		snprintf(item, sizeof(item), "%.*s", (int)n, v);
		v += n;
		/* a trailing comma is an empty suboption */
		if (*v == ',' && !*++v) {
			errmsg(err, errlen, "%s: option '%s': an empty suboption after ','", prog, opt);
			return -EINVAL;
		}
		kn = strcspn(item, "=");
		val = item[kn] ? item + kn + 1 : NULL;
		for (s = subs; s->name && (strlen(s->name) != kn || strncmp(s->name, item, kn)); s++)
			;
		if (!s->name) {
			item[kn] = '\0';
			errmsg(err, errlen,
			       "%s: option '%s': unknown suboption '%s' (fsbench(1), MATRIX, lists "
			       "the accepted ones)",
			       prog, opt, quote_str(item, q, sizeof(q)));
			return -EINVAL;
		}
		if (s->refused) {
			errmsg(err, errlen, "%s: option '%s': %s%s is not accepted: %s", prog, opt, s->name,
			       s->v == S_FLAG || s->v == S_OPTBOOL ? "" : "=", s->refused);
			return -EINVAL;
		}
		switch (s->v) {
		case S_FLAG:
			ok = !val;
			break;
		case S_OPTBOOL:
			ok = !val || !strcmp(val, "0") || !strcmp(val, "1");
			break;
		case S_NUM:
			ok = val && num_ok(val);
			break;
		case S_WORD:
			ok = val && word_ok(val, false);
			break;
		default:
			ok = !val || word_ok(val, false);
			break;
		}
		if (!ok) {
			errmsg(err, errlen, "%s: option '%s': %s", prog, opt, quote_str(item, q, sizeof(q)));
			errmsg(err + strlen(err), errlen - strlen(err), ": %s",
			       s->v == S_FLAG	   ? "takes no value"
			       : s->v == S_OPTBOOL ? "the value is 0 or 1"
			       : s->v == S_NUM	   ? "the value is a number or size"
					       : "the value is a name (letters, digits and _ . : + @ % ^ -)");
			return -EINVAL;
		}
	}
	return 0;
}

static int value_check(const char *prog, const char *opt, const struct mkopt *o, const char *v,
		       char *err, size_t errlen)
{
	char q[QUOTE_MAX];
	bool ok;

	switch (o->arg) {
	case A_SUBOPTS:
		return subopts_check(prog, opt, o->subs, v, err, errlen);
	case A_NUM:
		ok = num_ok(v);
		break;
	case A_SNUM:
		ok = num_ok(v + (*v == '-'));
		break;
	case A_WORD:
		ok = word_ok(v, true);
		break;
	case A_TEXT:
		ok = text_ok(v);
		break;
	case A_FEATURES:
		ok = features_ok(v);
		break;
	default:
		ok = true;
		break;
	}
	if (!ok) {
		errmsg(err, errlen, "%s: option '%s': '%s' is not %s", prog, opt, quote_str(v, q, sizeof(q)),
		       arg_what(o->arg));
		return -EINVAL;
	}
	return 0;
}

static int refuse(const char *prog, const char *opt, const struct mkopt *o, char *err, size_t errlen)
{
	errmsg(err, errlen, "%s: option '%s' is not accepted: %s", prog, opt, o->refused);
	return -EINVAL;
}

/* The words read as the program's getopt reads them (GNU getopt: operands anywhere, "--" ends
 * the options; a short option's argument glued or the next word, whatever it begins with; a
 * long option's after '=' or the next word). Every option must be in the table and accepted,
 * with a well-formed argument; an operand or "--" is refused. */
int fsopts_mkfs_check(const char *type, char *const words[], unsigned n, char *err, size_t errlen)
{
	char prog[64], q[QUOTE_MAX];
	size_t g;

	for (g = 0; g < sizeof(grammars) / sizeof(grammars[0]) && strcmp(grammars[g].type, type); g++)
		;
	if (g == sizeof(grammars) / sizeof(grammars[0])) {
		errmsg(err, errlen, "unknown filesystem '%s'", quote_str(type, q, sizeof(q)));
		return -EINVAL;
	}
	snprintf(prog, sizeof(prog), "mkfs.%s", type);
	for (unsigned i = 0; i < n; i++) {
		const char *w = words[i];
		const struct mkopt *o;

		if (!strcmp(w, "--")) {
			errmsg(err, errlen,
			       "%s: '--' is not accepted: it ends the options, and mkfs options "
			       "take no operands (the runner names the device)",
			       prog);
			return -EINVAL;
		}
		if (w[0] != '-' || !w[1]) {
			errmsg(err, errlen,
			       "%s: '%s' is not an option: mkfs options take no operands (no "
			       "device, no size: the runner names the device)",
			       prog, quote_str(w, q, sizeof(q)));
			return -EINVAL;
		}
		if (w[1] == '-') {
			size_t kn = strcspn(w + 2, "=");
			const char *v = w[2 + kn] ? w + 3 + kn : NULL;
			char opt[128];

			snprintf(opt, sizeof(opt), "--%.*s", (int)(kn < 100 ? kn : 100), w + 2);
			/* exact names only: getopt_long's abbreviations (--root) are not in the table */
			for (o = grammars[g].opts; grammars[g].long_opts && (o->sname || o->lname) &&
			     !(o->lname && strlen(o->lname) == kn && !strncmp(o->lname, w + 2, kn)); o++)
				;
			if (!grammars[g].long_opts || !o->lname) {
				errmsg(err, errlen,
				       "%s: unknown option '%s' (fsbench(1), MATRIX, lists the accepted "
				       "ones)",
				       prog, quote_str(opt, q, sizeof(q)));
				return -EINVAL;
			}
			if (o->refused)
				return refuse(prog, opt, o, err, errlen);
			if (o->arg == A_NONE) {
				if (v) {
					errmsg(err, errlen, "%s: option '%s' takes no value", prog, opt);
					return -EINVAL;
				}
				continue;
			}
			if (!v && i + 1 == n) {
				errmsg(err, errlen, "%s: option '%s' needs a value", prog, opt);
				return -EINVAL;
			}
			if (value_check(prog, opt, o, v ? v : words[++i], err, errlen))
				return -EINVAL;
			continue;
		}
		for (const char *p = w + 1; *p; p++) {
			char opt[3] = { '-', *p, '\0' };

			for (o = grammars[g].opts; (o->sname || o->lname) && o->sname != *p; o++)
				;
			if (!o->sname) {
				errmsg(err, errlen,
				       "%s: unknown option '%s' (fsbench(1), MATRIX, lists the accepted "
				       "ones)",
				       prog, quote_str(opt, q, sizeof(q)));
				return -EINVAL;
			}
			if (o->refused)
				return refuse(prog, opt, o, err, errlen);
			if (o->arg == A_NONE)
				continue;
			/* the rest of the word is the argument, or else the next word */
			if (!p[1] && i + 1 == n) {
				errmsg(err, errlen, "%s: option '%s' needs a value", prog, opt);
				return -EINVAL;
			}
			if (value_check(prog, opt, o, p[1] ? p + 1 : words[++i], err, errlen))
				return -EINVAL;
			break;
		}
	}
	return 0;
}

int fsopts_mkfs_check_str(const char *type, const char *opts, char *err, size_t errlen)
{
	char *words[MX_MAX_ARGS];
	unsigned n = 0;
	int rc;

	if (words_split(opts ? opts : "", words, MX_MAX_ARGS, &n, err, errlen))
		return -EINVAL;
	rc = fsopts_mkfs_check(type, words, n, err, errlen);
	while (n)
		free(words[--n]);
	return rc;
}

/* ---- mount ------------------------------------------------------------------------------ */

/* What changes where something is mounted or how mounts propagate, never what a filesystem of
 * fsbench's own is mounted with. */
#define MS_REFUSED (MS_REMOUNT | MS_BIND | MS_MOVE | MS_REC | MS_SHARED | MS_PRIVATE | MS_SLAVE | \
		    MS_UNBINDABLE)

/* Filesystem options (not in libmount's maps: the filesystem's own) that reach outside it. */
static const struct {
	const char *name;
	bool prefix;
	const char *why;
} fs_refused[] = {
	{ "journal_path", false, "an external journal: " OTHERDEV },
	{ "journal_dev", false, "an external journal: " OTHERDEV },
	{ "logdev", false, "an external log: " OTHERDEV },
	{ "rtdev", false, "a realtime device: " OTHERDEV },
	{ "device", false, "it adds a device to the filesystem: " OTHERDEV },
	{ "usrjquota", false, "it names a quota file" },
	{ "grpjquota", false, "it names a quota file" },
	{ "prjjquota", false, "it names a quota file" },
	{ "source", false, "the runner names the source" },
	{ "move", false, "it moves a mount" },
	{ "context", false, "a security label" },
	{ "fscontext", false, "a security label" },
	{ "defcontext", false, "a security label" },
	{ "rootcontext", false, "a security label" },
	{ "seclabel", false, "a security label" },
	{ "smackfs", true, "a security label" },
};

/* The entry of libmount's map that names the option ("name", "name=", "name[=]", a prefix
 * "x-"), or NULL. */
static const struct libmnt_optmap *map_find(const struct libmnt_optmap *map, const char *name, size_t n)
{
	for (; map && map->name; map++) {
		size_t k = strcspn(map->name, "=[");

		if ((map->mask & MNT_PREFIX) ? n >= k && !strncmp(map->name, name, k) :
					       k == n && !strncmp(map->name, name, n))
			return map;
	}
	return NULL;
}

static int append(char **dst, const char *s, size_t n)
{
	size_t a = *dst ? strlen(*dst) : 0;
	char *p = realloc(*dst, a + n + 2);

	if (!p)
		return -ENOMEM;
	if (a)
		p[a++] = ',';
	memcpy(p + a, s, n);
	p[a + n] = '\0';
	*dst = p;
	return 0;
}

/* Why the filesystem's own option name[=value] is refused, NULL when it is not. */
static const char *fs_option_refused(const char *name, size_t namesz, const char *value, size_t valsz)
{
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(fs_refused) / sizeof(fs_refused[0]) && !why; i++)
		if (fs_refused[i].prefix ? !strncmp(name, fs_refused[i].name, strlen(fs_refused[i].name)) :
		    strlen(fs_refused[i].name) == namesz && !strncmp(name, fs_refused[i].name, namesz))
			why = fs_refused[i].why;
	for (size_t i = 0; i < namesz && !why; i++)
		if (!is_alnum(name[i]) && !strchr("_.-", name[i]))
			why = "a name is letters, digits and _ . -";
	for (size_t i = 0; value && i < valsz && !why; i++)
		if (value[i] == '/')
			why = "a value with '/' is a path; fsbench passes no paths to mount";
		else if (!is_alnum(value[i]) && !strchr("_.:+@%^-", value[i]))
			why = "a value is letters, digits and _ . : + @ % ^ -";
	return why;
}

/* no quoting (libmount keeps "a,b" as one value, the kernel may not): plain words only; 0 or
 * -EINVAL said */
static int words_plain(const char *opts, char *err, size_t errlen)
{
	char q[QUOTE_MAX];

	for (const char *p = opts; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("\"'\\", *p)) {
			errmsg(err, errlen,
			       "mount options '%s': quotes, blanks and control characters are "
			       "not accepted",
			       quote_str(opts, q, sizeof(q)));
			return -EINVAL;
		}
	return 0;
}

int fsopts_mount_parse(const char *opts, unsigned long *flags, char **data, char *err, size_t errlen)
{
	const struct mountlib_mount *ml;
	const struct libmnt_optmap *linux_map, *user_map;
	char q[QUOTE_MAX], *copy, *next, *name, *value, *vfs = NULL, *fs = NULL, item[256];
	size_t namesz, valsz;
	unsigned long fl = 0;
	int rc = 0;

	if (flags)
		*flags = 0;
	if (data)
		*data = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!(ml = mountlib_mount(err, errlen)))
		return -ENOENT;
	linux_map = ml->get_builtin_optmap(MNT_LINUX_MAP);
	user_map = ml->get_builtin_optmap(MNT_USERSPACE_MAP);
	if (!opts)
		opts = "";
	if (words_plain(opts, err, errlen))
		return -EINVAL;
	if (!(copy = strdup(opts)))
		return -ENOMEM;
	next = copy;
	while (!rc && (rc = ml->optstr_next_option(&next, &name, &namesz, &value, &valsz)) == 0) {
		const struct libmnt_optmap *m;

		snprintf(item, sizeof(item), "%.*s%s%.*s", (int)(namesz < 100 ? namesz : 100), name,
			 value ? "=" : "", (int)(valsz < 100 ? valsz : 100), value ? value : "");
		quote_str(item, q, sizeof(q));
		if (!namesz) {
			if (value) {
				errmsg(err, errlen, "mount option '%s': no name", q);
				rc = -EINVAL;
			}
			continue;
		}
		if ((m = map_find(user_map, name, namesz))) {
			if (!strcmp(m->name, "defaults") && !value)
				continue;
			errmsg(err, errlen, "mount option '%s' is not accepted: %s", q,
			       !strcmp(m->name, "defaults")
				       ? "defaults takes no value"
				       : "an option of mount(8), not of the kernel (loop devices, helpers, fstab); "
					 "the runner mounts with mount(2)");
			rc = -EINVAL;
		} else if ((m = map_find(linux_map, name, namesz))) {
			if (value) {
				errmsg(err, errlen, "mount option '%s': %.*s takes no value", q, (int)namesz,
				       name);
				rc = -EINVAL;
			} else if ((unsigned long)m->id & MS_REFUSED) {
				errmsg(err, errlen,
				       "mount option '%s' is not accepted: bind, move, remount and "
				       "propagation (shared, private, slave, unbindable) change other mounts",
				       q);
				rc = -EINVAL;
			} else {
				rc = append(&vfs, name, namesz);
			}
		} else {
			const char *why = fs_option_refused(name, namesz, value, valsz);

			if (why) {
				errmsg(err, errlen, "mount option '%s' is not accepted: %s", q, why);
				rc = -EINVAL;
			} else {
				rc = append(&fs, name, namesz + (value ? valsz + 1 : 0));
			}
		}
	}
	if (rc == 1)
		rc = 0;
	else if (rc > 0)
		rc = -EINVAL;
	if (!rc && vfs && ml->optstr_get_flags(vfs, &fl, linux_map))
		rc = -EINVAL;
	if (rc == -ENOMEM)
		errmsg(err, errlen, "out of memory");
	else if (rc && err && !*err)
		errmsg(err, errlen, "mount options '%s': cannot parse them", quote_str(opts, q, sizeof(q)));
	if (!rc && flags)
		*flags = fl;
	if (!rc && data) {
		*data = fs;
		fs = NULL;
	}
	free(fs);
	free(vfs);
	free(copy);
	return rc;
}

/* ---- an experiment ---------------------------------------------------------------------- */

/* one value of a mkfs axis: "TYPE:OPTS" against mkfs.TYPE, plain OPTS against every
 * filesystem of the fs axis (ext4 without one) */
static int mkfs_value_check(const struct mx_exp *e, const char *set, char *err, size_t errlen)
{
	size_t tp = strspn(set, "abcdefghijklmnopqrstuvwxyz0123456789");
	bool any = false;
	int rc = 0;

	if (tp && set[tp] == ':') {
		char type[32];

		snprintf(type, sizeof(type), "%.*s", (int)(tp < 31 ? tp : 31), set);
		return fsopts_mkfs_check_str(type, set + tp + 1, err, errlen);
	}
	for (unsigned f = 0; f < e->naxes && !rc; f++) {
		const struct mx_axis *fs = &e->axes[f];

		for (unsigned k = 0; fs->kind == MX_FS && k < fs->nvalues && !rc; k++) {
			any = true;
			rc = fsopts_mkfs_check_str(fs->values[k].setting, set, err, errlen);
		}
	}
	return any ? rc : fsopts_mkfs_check_str("ext4", set, err, errlen);
}

int fsopts_exp_check(const struct mx_exp *e, bool cells, char *err, size_t errlen)
{
	char q[QUOTE_MAX], msg[1024];

	for (unsigned a = 0; a < e->naxes && !cells; a++) {
		const struct mx_axis *ax = &e->axes[a];

		for (unsigned v = 0; v < ax->nvalues; v++) {
			const char *set = ax->values[v].setting;
			int rc = ax->kind == MX_MOUNT ? fsopts_mount_parse(set, NULL, NULL, msg, sizeof(msg)) :
				 ax->kind == MX_MKFS ? mkfs_value_check(e, set, msg, sizeof(msg)) : 0;

			if (rc) {
				errmsg(err, errlen, "axis %s: value '%s': %s", ax->name,
				       quote_str(set, q, sizeof(q)), msg);
				return -EINVAL;
			}
		}
	}
	for (unsigned i = 0; i < e->ncells && cells; i++)
		if (fsopts_mount_parse(e->cells[i].mount_opts, NULL, NULL, msg, sizeof(msg))) {
			errmsg(err, errlen, "cell %s: %s", e->cells[i].name, msg);
			return -EINVAL;
		}
	return 0;
}
