/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Table-driven option parsing, strict number parsing, --help and man page text. */
#include "core/opt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/quote.h"

static void *field(void *cfg, const struct opt *o)
{
	return (char *)cfg + o->off;
}

static const void *cfield(const void *cfg, const struct opt *o)
{
	return (const char *)cfg + o->off;
}

bool opt_is_end(const struct opt *o)
{
	return !o->sname && !o->lname && o->type != OPT_GROUPS;
}

/* ---- option groups (core/opt.h) ------------------------------------------------------------ */
const struct opt *opt_groups_entry(const struct opt_cmd *c)
{
	if (!c->groups)
		return NULL;
	for (const struct opt *o = c->opts; !opt_is_end(o); o++)
		if (o->type == OPT_GROUPS)
			return o;
	return NULL;
}

bool opt_group_at(const struct opt_cmd *c, unsigned i, struct opt_group *g)
{
	memset(g, 0, sizeof(*g));
	if (!c->groups || !c->groups->at(i, g))
		return false;
	/* a group whose values do not fit the area is not offered (a registration checks it) */
	if (g->opts && (g->size > c->groups->values_size || !g->defaults))
		g->opts = NULL;
	return true;
}

struct opt_group_state *opt_group_state(const struct opt_cmd *c, void *cfg)
{
	const struct opt *e = opt_groups_entry(c);

	return e ? (struct opt_group_state *)((char *)cfg + e->off + c->groups->given_off) : NULL;
}

const void *opt_group_values(const struct opt_cmd *c, const void *cfg, unsigned i, const struct opt_group *g)
{
	const struct opt *e = opt_groups_entry(c);
	const struct opt_group_state *st;

	if (!e)
		return g->defaults;
	st = (const void *)((const char *)cfg + e->off + c->groups->given_off);
	return st->owner == i + 1 ? (const char *)cfg + e->off + c->groups->values_off : g->defaults;
}

/* The leading digits of s: strtoull would also take "-1", " 1" and "+1", a number here is
 * digits only. *end points past them. 0, -EINVAL or -ERANGE. */
static int parse_digits(const char *s, unsigned long long *v, char **end)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno == ERANGE ? -ERANGE : 0;
}

int opt_parse_uint(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int rc = parse_digits(s, &v, &end);

	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int opt_parse_size(const char *s, uint64_t unit, bool suffixes, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;
	int rc = parse_digits(s, &v, &end);

	if (rc)
		return rc;
	if (*end) {
		if (!suffixes)
			return -EINVAL;
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: return -EINVAL;
		}
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "ib"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		*out = (uint64_t)v << shift;
		return 0;
	}
	if (!unit)
		unit = 1;
	if (v > UINT64_MAX / unit)
		return -ERANGE;
	*out = (uint64_t)v * unit;
	return 0;
}

int opt_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1000000000 },
		{ "m", UINT64_C(60000000000) }, { "h", UINT64_C(3600000000000) },
	};
	unsigned long long v;
	char *end;
	int rc = parse_digits(s, &v, &end);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		if (v > UINT64_MAX / units[i].ns)
			return -ERANGE;
		*ns = (uint64_t)v * units[i].ns;
		return 0;
	}
	return -EINVAL;
}

static void fmt_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fmt_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* --name of one of c's groups: 1 with the entry rebased onto the config in *out (the group's
 * defaults taken into the values when it is the first of its options given), 0 when no group
 * has it, -1 with a message when another group's options were given already. */
static int group_find(const struct opt_cmd *c, const char *name, size_t nlen, void *cfg, struct opt *out,
		      char *err, size_t errlen)
{
	const struct opt *e = opt_groups_entry(c);
	struct opt_group g;

	for (unsigned i = 0; e && opt_group_at(c, i, &g); i++)
		for (unsigned j = 0; g.opts && !opt_is_end(&g.opts[j]); j++) {
			const struct opt *o = &g.opts[j];
			struct opt_group_state *st = opt_group_state(c, cfg);
			char *values = (char *)cfg + e->off + c->groups->values_off;

			if (!o->lname || strlen(o->lname) != nlen || strncmp(o->lname, name, nlen))
				continue;
			if (st->given && st->owner != i + 1) {
				struct opt_group first;

				opt_group_at(c, st->owner - 1, &first);
				fmt_err(err, errlen,
					"options --%s (%s %s) and --%s (%s %s) cannot be combined",
					first.opts[st->given - 1].lname, c->groups->kind, first.name,
					o->lname, c->groups->kind, g.name);
				return -1;
			}
			if (!st->given) {
				memset(values, 0, c->groups->values_size);
				memcpy(values, g.defaults, g.size);
				st->owner = i + 1;
				st->given = j + 1;
			}
			*out = *o;
			out->off += e->off + c->groups->values_off;
			return 1;
		}
	return 0;
}

/* --name in c's table, or in one of its groups (rebased into *grp); NULL when unknown, or
 * with *bad set and a message when the groups refuse it */
static const struct opt *long_opt(const struct opt_cmd *c, const char *name, size_t nlen, void *cfg,
				  struct opt *grp, char *err, size_t errlen, bool *bad)
{
	int g;

	*bad = false;
	for (const struct opt *o = c->opts; !opt_is_end(o); o++)
		if (o->lname && strlen(o->lname) == nlen && !strncmp(o->lname, name, nlen))
			return o;
	g = group_find(c, name, nlen, cfg, grp, err, errlen);
	*bad = g < 0;
	return g > 0 ? grp : NULL;
}

/* "-f" or "--size", as the user spelled it */
static const char *spelled(const struct opt *o, bool lng, char *buf, size_t len)
{
	if (lng)
		snprintf(buf, len, "--%s", o->lname);
	else
		snprintf(buf, len, "-%c", o->sname);
	return buf;
}

static int set_value(const struct opt *o, bool lng, const char *val, void *cfg, char *err,
		     size_t errlen)
{
	char name[64], q[QUOTE_MAX];
	uint64_t v;
	int rc;

	spelled(o, lng, name, sizeof(name));
	/* the value as it may be echoed: no raw newline or escape sequence from argv */
	quote_str(val, q, sizeof(q));
	switch (o->type) {
	case OPT_STR:
		if (!*val) {
			fmt_err(err, errlen, "option %s: empty value", name);
			return -1;
		}
		*(const char **)field(cfg, o) = val;
		return 0;
	case OPT_STRS: {
		struct opt_strs *l = field(cfg, o);

		if (!*val) {
			fmt_err(err, errlen, "option %s: empty value", name);
			return -1;
		}
		if (!l->user) {
			l->user = true;
			l->n = 0;
		}
		if (l->n >= o->max_n) {
			fmt_err(err, errlen, "option %s: given more than %u times", name, o->max_n);
			return -1;
		}
		l->v[l->n++] = val;
		return 0;
	}
	case OPT_UINT:
	case OPT_UINT_OPTIONAL:
	case OPT_UINTS:
	case OPT_SIZE:
	case OPT_TIME:
		if (o->type == OPT_TIME)
			rc = opt_parse_time(val, &v);
		else if (o->type == OPT_SIZE)
			rc = opt_parse_size(val, o->unit, lng, &v);
		else
			rc = opt_parse_uint(val, &v);
		if (rc == -ERANGE) {
			fmt_err(err, errlen, "option %s: '%s' is too large", name, q);
			return -1;
		}
		if (rc) {
			if (o->type == OPT_SIZE && lng)
				fmt_err(err, errlen, "option %s: '%s' is not a size (a whole number, optionally followed by k, m, g or t)", name, q);
			else if (o->type == OPT_TIME)
				fmt_err(err, errlen, "option %s: '%s' is not a duration (a whole number, optionally followed by ns, us, ms, s, m or h)", name, q);
			else
				fmt_err(err, errlen, "option %s: '%s' is not a whole number", name, q);
			return -1;
		}
		if (v < o->min || v > o->max) {
			uint64_t u = (o->type == OPT_SIZE && o->unit) ? o->unit : 1;

			if (o->type == OPT_TIME)
				fmt_err(err, errlen, "option %s: %s is out of range (%llums..%llus)", name, q,
					(unsigned long long)(o->min / 1000000), (unsigned long long)(o->max / 1000000000));
			else if (o->type == OPT_SIZE && !lng && u > 1)
				fmt_err(err, errlen, "option %s: %s is out of range (%llu..%llu)", name, q,
					(unsigned long long)((o->min + u - 1) / u),
					(unsigned long long)(o->max / u));
			else
				fmt_err(err, errlen, "option %s: %s is out of range (%llu..%llu)", name, q,
					(unsigned long long)o->min, (unsigned long long)o->max);
			return -1;
		}
		if (o->type == OPT_UINTS) {
			struct opt_uints *l = field(cfg, o);

			if (l->n >= o->max_n) {
				fmt_err(err, errlen, "option %s: given more than %u times", name, o->max_n);
				return -1;
			}
			l->v[l->n++] = v;
		} else {
			*(uint64_t *)field(cfg, o) = v;
		}
		return 0;
	default:
		return 0;
	}
}

bool opt_takes_arg(const struct opt *o)
{
	return o->type != OPT_FLAG && o->type != OPT_HELP;
}

bool opt_arg_optional(const struct opt *o)
{
	return o->type == OPT_UINT_OPTIONAL;
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *cfg, char *err, size_t errlen)
{
	char q[QUOTE_MAX];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o;
		struct opt grp;
		bool bad;

		if (a[0] != '-' || !a[1]) {
			fmt_err(err, errlen, "unexpected argument '%s'", quote_str(a, q, sizeof(q)));
			return -1;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
			const char *val = NULL;

			if (!*name) {
				fmt_err(err, errlen, "unexpected argument '--'");
				return -1;
			}
			o = long_opt(c, name, nlen, cfg, &grp, err, errlen, &bad);
			if (bad)
				return -1;
			if (!o) {
				char n[QUOTE_MAX];

				snprintf(n, sizeof(n), "%.*s", (int)nlen, name);
				fmt_err(err, errlen, "unknown option '--%s'", quote_str(n, q, sizeof(q)));
				return -1;
			}
			if (!opt_takes_arg(o)) {
				if (eq) {
					fmt_err(err, errlen, "option --%s takes no value", o->lname);
					return -1;
				}
				if (o->type == OPT_HELP)
					*(int *)field(cfg, o) = 2;
				else
					*(bool *)field(cfg, o) = true;
				continue;
			}
			if (eq)
				val = eq + 1;
			else if (opt_arg_optional(o)) {
				/* --name alone: the value it implies; a value must be attached (=N) */
				*(uint64_t *)field(cfg, o) = o->unit;
				continue;
			} else if (i + 1 < argc)
				val = argv[++i];
			else {
				fmt_err(err, errlen, "option --%s needs a value (%s)", o->lname, o->arg);
				return -1;
			}
			if (set_value(o, true, val, cfg, err, errlen))
				return -1;
			continue;
		}
		/* a cluster of short options, as getopt takes them: -LT, -k3, -t 8 */
		for (const char *p = a + 1; *p; p++) {
			for (o = c->opts; !opt_is_end(o); o++)
				if (o->sname == *p)
					break;
			if (opt_is_end(o)) {
				fmt_err(err, errlen, "unknown option '-%s'",
					quote_str((const char[]){ *p, '\0' }, q, sizeof(q)));
				return -1;
			}
			if (!opt_takes_arg(o)) {
				if (o->type == OPT_HELP)
					*(int *)field(cfg, o) = 1;
				else
					*(bool *)field(cfg, o) = true;
				continue;
			}
			const char *val;

			if (p[1])
				val = p + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fmt_err(err, errlen, "option -%c needs a value (%s)", o->sname, o->arg);
				return -1;
			}
			if (set_value(o, false, val, cfg, err, errlen))
				return -1;
			break;
		}
	}
	return 0;
}

static void fmt_size(uint64_t v, uint64_t unit, char *buf, size_t len)
{
	static const char sfx[] = "kmgt";

	if (!unit)
		unit = 1;
	if (v % unit == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)(v / unit));
		return;
	}
	for (int i = 3; i >= 0; i--) {
		uint64_t m = UINT64_C(1) << (10 * (i + 1));

		if (v % m == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(v / m), sfx[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu bytes", (unsigned long long)v);
}

/* The default as text, or "" when there is none worth showing. */
void opt_format_default(const struct opt *o, const void *defaults, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (o->type) {
	case OPT_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)cfield(defaults, o));
		break;
	case OPT_SIZE:
		fmt_size(*(const uint64_t *)cfield(defaults, o), o->unit, buf, len);
		break;
	case OPT_TIME: {
		uint64_t v = *(const uint64_t *)cfield(defaults, o);

		if (v % 1000000000 == 0)
			snprintf(buf, len, "%llus", (unsigned long long)(v / 1000000000));
		else
			snprintf(buf, len, "%llums", (unsigned long long)(v / 1000000));
		break;
	}
	case OPT_STR: {
		const char *s = *(const char *const *)cfield(defaults, o);

		if (s)
			snprintf(buf, len, "%s", s);
		break;
	}
	case OPT_STRS: {
		const struct opt_strs *l = cfield(defaults, o);
		size_t at = 0;

		for (unsigned i = 0; i < l->n && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", l->v[i]);
		break;
	}
	default:
		break;
	}
}

void opt_format_names(const struct opt *o, char *buf, size_t len)
{
	char arg[64] = "";

	if (opt_arg_optional(o))
		snprintf(arg, sizeof(arg), "[=%s]", o->arg);
	else if (opt_takes_arg(o))
		snprintf(arg, sizeof(arg), o->lname ? "=%s" : " %s", o->arg);
	if (o->sname && o->lname)
		snprintf(buf, len, "-%c, --%s%s", o->sname, o->lname, arg);
	else if (o->sname)
		snprintf(buf, len, "-%c%s", o->sname, arg);
	else
		snprintf(buf, len, "    --%s%s", o->lname, arg);
}

