/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ksyms: kallsyms parsing (modules, non-text symbols, restricted tables), lookups at and
 * between symbols, maps parsing, this test program's own ELF symbols at their PIE addresses,
 * and, when perf is permitted here, a live profile that finds a kernel symbol. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sys/ksyms.h"
#include "sys/perf.h"

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T do_sys_open\n"
	"ffffffff81002000 D some_data\n"
	"ffffffff81003000 t vfs_write\n"
	"ffffffffc0100000 t ext4_da_write_begin\t[ext4]\n"
	"ffffffffc0100400 T ext4_file_write_iter\t[ext4]\n"
	"ffffffffc0200000 t jbd2_journal_commit_transaction\t[jbd2]\n"
	"broken\n";
static const char restricted[] =
	"0000000000000000 T _text\n0000000000000000 t vfs_write\n";

static const char maps[] =
	"55d0c0000000-55d0c0010000 r--p 00000000 fd:01 123 /usr/bin/fsbench\n"
	"55d0c0010000-55d0c0050000 r-xp 00010000 fd:01 123 /usr/bin/fsbench\n"
	"7f0000000000-7f0000100000 r-xp 00028000 fd:01 456                        /usr/lib/libc.so.6\n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n";

int __attribute__((noinline)) test_ksyms_marker(int x);
int __attribute__((noinline)) test_ksyms_marker(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	struct ksyms k = { 0 };
	struct kmaps m;
	const struct ksym *s;

	CHECK(ksyms_parse_kallsyms(&k, kallsyms) == 0 && !k.restricted, "parse");
	CHECK(k.n == 6, "text symbols only: %zu", k.n);
	s = ksyms_find(&k, 0xffffffff81001234);
	CHECK(s && !strcmp(ksym_name(&k, s), "do_sys_open") && !strcmp(ksym_image(&k, s), "vmlinux"), "in vmlinux");
	s = ksyms_find(&k, 0xffffffff81003000);
	CHECK(s && !strcmp(ksym_name(&k, s), "vfs_write"), "exact address");
	s = ksyms_find(&k, 0xffffffffc0100500);
	CHECK(s && !strcmp(ksym_name(&k, s), "ext4_file_write_iter") && !strcmp(ksym_image(&k, s), "ext4"),
	      "module image");
	s = ksyms_find(&k, 0xffffffffc0200010);
	CHECK(s && !strcmp(ksym_image(&k, s), "jbd2"), "jbd2");
	CHECK(ksyms_find(&k, 0xffffffff80000000) == NULL, "below the first symbol");
	ksyms_free(&k);
	CHECK(ksyms_parse_kallsyms(&k, restricted) == 0 && k.restricted, "kptr_restrict table");
	ksyms_free(&k);
	CHECK(ksyms_parse_kallsyms(&k, "") == 0 && k.restricted, "empty table");
	ksyms_free(&k);

	CHECK(kmaps_parse(&m, maps) == 0 && m.n == 3, "executable mappings: %zu", m.n);
	CHECK(kmaps_find(&m, 0x7f0000000100) && !strcmp(kmaps_find(&m, 0x7f0000000100)->path, "/usr/lib/libc.so.6"),
	      "padded path");
	CHECK(kmaps_find(&m, 0x55d0c0000100) == NULL, "non-exec mapping ignored");
	kmaps_free(&m);

	/* this program's own symbols, at the address the loader put them */
	{
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		uint64_t bias = 0;
		const struct kmap *me = NULL;

		CHECK(n > 0 && kmaps_load_self(&m) == 0, "own maps");
		if (n > 0) {
			exe[n] = '\0';
			for (size_t i = 0; i < m.n; i++)
				if (!strcmp(m.v[i].path, exe))
					me = &m.v[i];
		}
		CHECK(me != NULL, "own executable mapping");
		if (me) {
			CHECK(ksyms_elf_bias("/proc/self/exe", me->start, me->offset, &bias) == 0, "bias");
			memset(&k, 0, sizeof(k));
			CHECK(ksyms_load_elf(&k, "/proc/self/exe", bias, "test") == 0, "own .symtab");
			ksyms_sort(&k);
			s = ksyms_find(&k, (uint64_t)(uintptr_t)&test_ksyms_marker + 2);
			CHECK(s && !strcmp(ksym_name(&k, s), "test_ksyms_marker"), "own function found: %s",
			      s ? ksym_name(&k, s) : "none");
			s = ksyms_find(&k, (uint64_t)(uintptr_t)&main);
			CHECK(s && !strcmp(ksym_name(&k, s), "main"), "main");
			/* past the end of the last sized symbol: not blamed on it */
			CHECK(ksyms_find(&k, UINT64_C(0x7fffffffffff)) == NULL, "sized symbols end");
			ksyms_free(&k);
		}
		kmaps_free(&m);
	}

	/* live: when this machine lets us sample the kernel, a busy syscall loop shows up in it */
	{
		struct perf_session *ps;
		struct perf_config c = { .hz = 999, .callgraph = true };
		struct perf_profile *p = NULL;
		char why[512];

		if (perf_open(&ps, &c, why, sizeof(why))) {
			CHECK_SKIP("live profile", "%s", why);
		} else {
			volatile unsigned sink = 0;
			double sum = 0;
			bool kernel = false;

			CHECK(perf_begin(ps) == 0, "perf_begin");
			for (int i = 0; i < 200000; i++)
				sink += (unsigned)getppid() + (unsigned)test_ksyms_marker(i % 1000);
			CHECK(perf_end(ps, &p) == 0 && p, "perf_end");
			if (p) {
				for (size_t i = 0; i < p->n; i++) {
					sum += p->v[i].pct;
					if (!strcmp(p->v[i].image, "vmlinux"))
						kernel = true;
				}
				CHECK(p->samples > 10, "samples: %llu", (unsigned long long)p->samples);
				CHECK(p->samples == 0 || (sum > 99.9 && sum < 100.1), "percentages sum to 100: %f", sum);
				CHECK(kernel, "kernel symbols in the profile");
				CHECK(p->nstacks > 0 && strchr(p->stacks[0].folded, ';'), "folded stacks");
				perf_profile_free(p);
			}
			perf_close(ps);
		}
	}
	return check_done("test_ksyms");
}
