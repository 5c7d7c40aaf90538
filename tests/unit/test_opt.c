/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt: table-driven parsing of good and bad command lines, every bad-input class, and the
 * strict number parsers. */
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "core/opt.h"

struct cfg {
	uint64_t n, size, mib, sample;
	bool flag_a, flag_b;
	const char *str;
	struct opt_strs dirs;
	struct opt_uints skip;
	int help;
};

#define F(x) offsetof(struct cfg, x)
static const struct opt opts[] = {
	{ 't', "threads", OPT_UINT, F(n), "N", 1, 64, 0, 0, "threads" },
	{ 'b', "block-size", OPT_SIZE, F(size), "BYTES", 1, UINT64_C(1) << 30, 1, 0, "block" },
	{ 'f', "size", OPT_SIZE, F(mib), "MIB", 1, UINT64_C(1) << 50, 1 << 20, 0, "size" },
	{ 'L', "flag-a", OPT_FLAG, F(flag_a), NULL, 0, 0, 0, 0, "a" },
	{ 'T', NULL, OPT_FLAG, F(flag_b), NULL, 0, 0, 0, 0, "b" },
	{ 0, "json", OPT_STR, F(str), "FILE", 0, 0, 0, 0, "json" },
	{ 'd', "dir", OPT_STRS, F(dirs), "DIR", 0, 0, 0, 3, "dir" },
	{ 'k', "skip", OPT_UINTS, F(skip), "N", 0, 3, 0, 4, "skip" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "help" },
	{ 0, "sample", OPT_UINT_OPTIONAL, F(sample), "N", 1, 1000000, 1000, 0, "sample" },
	{ 0 },
};
static const struct opt_cmd cmd = { "t", "test", opts, NULL };

static void defaults(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->n = 4;
	c->size = 4096;
	c->mib = 10 << 20;
	c->dirs.n = 1;
	c->dirs.v[0] = ".";
}

static int parse(struct cfg *c, char *err, const char *a0, const char *a1, const char *a2,
		 const char *a3, const char *a4)
{
	char *argv[] = { (char *)"t", (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
	int argc = 1;

	while (argv[argc])
		argc++;
	defaults(c);
	err[0] = '\0';
	return opt_parse(&cmd, argc, argv, c, err, 256);
}

#define END NULL
static const struct {
	const char *a[5];
	const char *want_err;        /* NULL: must parse; else a substring of the message */
} bad_or_good[] = {
	{ { "-t", "8", END }, NULL },
	{ { "-t8", END }, NULL },
	{ { "--threads=8", END }, NULL },
	{ { "--threads", "8", END }, NULL },
	{ { "-LT", END }, NULL },
	{ { "-Lt", "3", END }, NULL },
	{ { "-Lt3", END }, NULL },
	{ { "-t", "abc", END }, "option -t: 'abc' is not a whole number" },
	{ { "-t", "-1", END }, "option -t: '-1' is not a whole number" },
	{ { "-t", "+1", END }, "is not a whole number" },
	{ { "-t", " 1", END }, "is not a whole number" },
	{ { "-t", "1x", END }, "is not a whole number" },
	{ { "-t", "", END }, "is not a whole number" },
	{ { "-t", "0", END }, "option -t: 0 is out of range (1..64)" },
	{ { "-t", "65", END }, "out of range" },
	{ { "-t", "99999999999999999999", END }, "option -t: '99999999999999999999' is too large" },
	{ { "-t", END }, "option -t needs a value" },
	{ { "--threads", END }, "option --threads needs a value" },
	{ { "-z", END }, "unknown option '-z'" },
	{ { "--nope", END }, "unknown option '--nope'" },
	{ { "--flag-a=1", END }, "option --flag-a takes no value" },
	{ { "stray", END }, "unexpected argument 'stray'" },
	{ { "-", END }, "unexpected argument '-'" },
	{ { "--", END }, "unexpected argument '--'" },
	{ { "-k", "4", END }, "option -k: 4 is out of range (0..3)" },
	{ { "-k0", "-k1", "-k2", "-k3", "-k0" }, "option -k: given more than 4 times" },
	{ { "-b", "4k", END }, "option -b: '4k' is not a whole number" },
	{ { "--block-size", "4x", END }, "is not a size" },
	{ { "--block-size", "4kk", END }, "is not a size" },
	{ { "--block-size", "2g", END }, "out of range" },
	{ { "--block-size", "0", END }, "out of range" },
	{ { "-f", "0", END }, "option -f: 0 is out of range (1..1073741824)" },
	{ { "--size", "16777216t", END }, "is too large" },
	{ { "-f", "18446744073709551615", END }, "is too large" },
	{ { "--json", "", END }, "option --json: empty value" },
	{ { "-d", "a", "-d", "b", "-da" }, NULL },
	{ { "-d", "a", "-d", "b", "-d" }, "option -d needs a value" },
	{ { "--sample", END }, NULL },
	{ { "--sample=5", END }, NULL },
	{ { "--sample=0", END }, "option --sample: 0 is out of range (1..1000000)" },
	{ { "--sample=", END }, "option --sample: '' is not a whole number" },
	{ { "--sample=x", END }, "is not a whole number" },
	{ { "--sample", "5", END }, "unexpected argument '5'" },
};

/* ---- option groups: two groups' options in one shared area ---- */
struct ga {
	bool on;
	uint64_t n;
};
struct gb {
	bool x;
};
static const struct ga ga_def = { false, 7 };
static const struct gb gb_def = { true };
static const struct opt ga_opts[] = {
	{ 0, "a-on", OPT_FLAG, offsetof(struct ga, on), NULL, 0, 0, 0, 0, "a on" },
	{ 0, "a-n", OPT_UINT, offsetof(struct ga, n), "N", 1, 9, 0, 0, "a n" },
	{ 0 },
};
static const struct opt gb_opts[] = {
	{ 0, "b-x", OPT_FLAG, offsetof(struct gb, x), NULL, 0, 0, 0, 0, "b x" },
	{ 0 },
};

static bool g_at(unsigned i, struct opt_group *g)
{
	if (i == 0)
		*g = (struct opt_group){ "ga", ga_opts, &ga_def, sizeof(ga_def) };
	else if (i == 1)
		g->name = "none"; /* a group without options */
	else if (i == 2)
		*g = (struct opt_group){ "gb", gb_opts, &gb_def, sizeof(gb_def) };
	return i < 3;
}

struct gcfg {
	bool own;
	struct {
		struct opt_group_state st;
		_Alignas(8) unsigned char v[16];
	} g;
};

static const struct opt_groups gs = { "thing",
				      "thing",
				      g_at,
				      offsetof(typeof(((struct gcfg *)0)->g), st),
				      offsetof(typeof(((struct gcfg *)0)->g), v),
				      16 };
static const struct opt gopts[] = {
	{ 0, "own", OPT_FLAG, offsetof(struct gcfg, own), NULL, 0, 0, 0, 0, "own" },
	{ 0, NULL, OPT_GROUPS, offsetof(struct gcfg, g), NULL, 0, 0, 0, 0, NULL },
	{ 0 },
};
static const struct opt_cmd gcmd = { "g", "groups", gopts, &gs };

static int gparse(struct gcfg *c, char *err, const char *a0, const char *a1, const char *a2)
{
	char *argv[] = { (char *)"g", (char *)a0, (char *)a1, (char *)a2, NULL };
	int argc = 1;

	while (argv[argc])
		argc++;
	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	return opt_parse(&gcmd, argc, argv, c, err, 256);
}

static void test_groups(void)
{
	struct gcfg c;
	struct opt_group g;
	char err[256];
	const struct ga *a = (const void *)c.g.v;

	CHECK(opt_groups_entry(&gcmd) == &gopts[1] && opt_groups_entry(&cmd) == NULL, "the entry");
	CHECK(!opt_is_end(&gopts[1]), "an OPT_GROUPS entry does not end the table");
	CHECK(!gparse(&c, err, "--own", END, END) && c.own && !c.g.st.owner && !c.g.st.given,
	      "no group option");
	/* the first option of a group takes the area with the group's defaults */
	CHECK(!gparse(&c, err, "--a-on", END, END) && a->on && a->n == 7 && c.g.st.owner == 1 &&
		      c.g.st.given == 1,
	      "--a-on: owner %u given %u", c.g.st.owner, c.g.st.given);
	CHECK(!gparse(&c, err, "--a-n=3", "--a-on", "--own") && a->on && a->n == 3 && c.g.st.given == 2,
	      "--a-n=3 --a-on: given %u", c.g.st.given);
	CHECK(gparse(&c, err, "--a-n=10", END, END) && strstr(err, "out of range"), "a group's range: %s",
	      err);
	CHECK(!gparse(&c, err, "--b-x", END, END) && c.g.st.owner == 3 && c.g.v[0], "--b-x: owner %u",
	      c.g.st.owner);
	CHECK(gparse(&c, err, "--a-on", "--b-x", END) &&
		      !strcmp(err, "options --a-on (thing ga) and --b-x (thing gb) cannot be combined"),
	      "two groups: %s", err);
	CHECK(gparse(&c, err, "--c", END, END) && !strcmp(err, "unknown option '--c'"), "unknown: %s", err);
	/* output reads the owner's values from the config, the others' defaults */
	CHECK(!gparse(&c, err, "--a-n=5", END, END), "--a-n=5");
	CHECK(opt_group_at(&gcmd, 0, &g) && ((const struct ga *)opt_group_values(&gcmd, &c, 0, &g))->n == 5,
	      "the owner's values");
	CHECK(opt_group_at(&gcmd, 1, &g) && !g.opts, "a group without options");
	CHECK(opt_group_at(&gcmd, 2, &g) && opt_group_values(&gcmd, &c, 2, &g) == &gb_def,
	      "another's defaults");
	CHECK(!opt_group_at(&gcmd, 3, &g), "past the end");
}

int main(void)
{
	struct cfg c;
	char err[256];
	uint64_t v;

	for (size_t i = 0; i < sizeof(bad_or_good) / sizeof(bad_or_good[0]); i++) {
		const char *const *a = bad_or_good[i].a;
		int rc = parse(&c, err, a[0], a[1], a[2], a[3], a[4]);

		if (!bad_or_good[i].want_err)
			CHECK(rc == 0, "case %zu (%s ...) should parse: %s", i, a[0], err);
		else
			CHECK(rc != 0 && strstr(err, bad_or_good[i].want_err) && !strchr(err, '\n'),
			      "case %zu (%s %s): got '%s', want '%s'", i, a[0], a[1] ? a[1] : "", err,
			      bad_or_good[i].want_err);
	}
	/* values land where they should */
	CHECK(!parse(&c, err, "-Lt3", "--size=2g", "-b", "8192", END) && c.n == 3 && c.flag_a &&
	      !c.flag_b && c.mib == (UINT64_C(2) << 30) && c.size == 8192, "values");
	CHECK(!parse(&c, err, "-f", "9000", END, END, END) && c.mib == UINT64_C(9000) << 20, "-f counts MiB");
	CHECK(!parse(&c, err, "--size", "9000", END, END, END) && c.mib == UINT64_C(9000) << 20, "--size bare is MiB");
	CHECK(!parse(&c, err, "--size", "512k", END, END, END) && c.mib == 512 << 10, "--size 512k");
	CHECK(!parse(&c, err, "--block-size=1MiB", END, END, END, END) && c.size == 1 << 20, "--block-size 1MiB");
	CHECK(!parse(&c, err, END, END, END, END, END) && c.dirs.n == 1 && !strcmp(c.dirs.v[0], "."),
	      "default list kept");
	CHECK(!parse(&c, err, "-d", "x", "-dy", END, END) && c.dirs.n == 2 && !strcmp(c.dirs.v[0], "x") &&
	      !strcmp(c.dirs.v[1], "y"), "first -d replaces the default");
	CHECK(!parse(&c, err, "-k1", "-k", "3", END, END) && c.skip.n == 2 && c.skip.v[0] == 1 &&
	      c.skip.v[1] == 3, "repeatable -k");
	CHECK(!parse(&c, err, "-h", END, END, END, END) && c.help == 1, "-h");
	CHECK(!parse(&c, err, "--help", END, END, END, END) && c.help == 2, "--help");
	CHECK(!parse(&c, err, "--json=-", END, END, END, END) && !strcmp(c.str, "-"), "--json=-");
	/* an optional value: given alone, the value it implies; given, that value; not given, 0 */
	CHECK(!parse(&c, err, "--sample", END, END, END, END) && c.sample == 1000, "--sample alone: %llu",
	      (unsigned long long)c.sample);
	CHECK(!parse(&c, err, "--sample=7", END, END, END, END) && c.sample == 7, "--sample=7");
	CHECK(!parse(&c, err, END, END, END, END, END) && c.sample == 0, "no --sample: 0");
	{
		char names[64];

		opt_format_names(&opts[9], names, sizeof(names));
		CHECK(!strcmp(names, "    --sample[=N]"), "names: '%s'", names);
	}
	/* the number parsers themselves */
	CHECK(opt_parse_uint("18446744073709551615", &v) == 0 && v == UINT64_MAX, "uint max");
	CHECK(opt_parse_uint("18446744073709551616", &v) < 0, "uint overflow");
	CHECK(opt_parse_size("16777215t", 1, true, &v) == 0, "size max t");
	CHECK(opt_parse_size("17592186044416", 1 << 20, false, &v) < 0, "size unit overflow");
	CHECK(opt_parse_size("1k", 1, false, &v) < 0, "no suffix on short options");
	test_groups();
	return check_done("test_opt");
}
