/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbol tables for profiles: /proc/kallsyms, an ELF .symtab, /proc/self/maps. */
#include "sys/ksyms.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* names are stored as arena offsets: the arena moves while it grows */
static long arena_put(struct ksyms *k, const char *s, size_t len)
{
	size_t at = k->arena_len;

	if (k->arena_len + len + 1 > k->arena_cap) {
		size_t cap = k->arena_cap ? k->arena_cap * 2 : 1 << 20;
		char *a;

		while (cap < k->arena_len + len + 1)
			cap *= 2;
		a = realloc(k->arena, cap);
		if (!a || cap > UINT32_MAX)
			return -1;
		k->arena = a;
		k->arena_cap = cap;
	}
	memcpy(k->arena + at, s, len);
	k->arena[at + len] = '\0';
	k->arena_len += len + 1;
	return (long)at;
}

static int push(struct ksyms *k, uint64_t addr, uint64_t size, const char *name, size_t nlen,
		const char *image, size_t ilen)
{
	long n, i;

	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		struct ksym *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	n = arena_put(k, name, nlen);
	i = arena_put(k, image, ilen);
	if (n < 0 || i < 0)
		return -ENOMEM;
	k->v[k->n++] = (struct ksym){ .addr = addr, .size = size, .name = (uint32_t)n, .image = (uint32_t)i };
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ksyms_sort(struct ksyms *k)
{
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), by_addr);
}

int ksyms_parse_kallsyms(struct ksyms *k, const char *text)
{
	const char *p = text;
	size_t nonzero = 0, total = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		const char *name, *nend, *mod = "vmlinux", *mend;
		unsigned long long addr;
		char *e;
		char type;

		addr = strtoull(p, &e, 16);
		if (e == p || *e != ' ' || e + 3 > end)
			goto next;
		type = e[1];
		name = e + 3;
		nend = name;
		while (nend < end && *nend != '\t' && *nend != ' ')
			nend++;
		mend = mod + 7;
		if (nend < end) {
			/* "\t[ext4]" */
			const char *b = memchr(nend, '[', (size_t)(end - nend));
			const char *c = b ? memchr(b, ']', (size_t)(end - b)) : NULL;

			if (b && c) {
				mod = b + 1;
				mend = c;
			}
		}
		/* text symbols only: samples land in code */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			goto next;
		total++;
		if (addr)
			nonzero++;
		if (push(k, addr, 0, name, (size_t)(nend - name), mod, (size_t)(mend - mod)))
			return -ENOMEM;
next:
		p = nl ? nl + 1 : end;
	}
	k->restricted = total > 0 && nonzero == 0;
	if (total == 0)
		k->restricted = true;
	ksyms_sort(k);
	return 0;
}

/* A whole /proc file into a NUL-terminated buffer (procfs sizes are not known up front). */
static int read_proc_file(const char *path, char **out)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int rc = -errno;

		free(buf);
		return rc;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *b = realloc(buf, cap * 2);

			if (!b) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = b;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int ksyms_load_kernel(struct ksyms *k)
{
	char *buf;
	int rc = read_proc_file("/proc/kallsyms", &buf);

	if (rc)
		return rc;
	rc = ksyms_parse_kallsyms(k, buf);
	free(buf);
	return rc;
}

const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	const struct ksym *s;

	/* the last symbol at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &k->v[lo - 1];
	if (k->sized && addr >= s->addr + s->size)
		return NULL;
	return s;
}

void ksyms_free(struct ksyms *k)
{
	free(k->v);
	free(k->arena);
	memset(k, 0, sizeof(*k));
}

/* a bounds-checked view of a mapped ELF file */
struct elf_view {
	const unsigned char *p;
	size_t len;
};

static const void *at(const struct elf_view *e, uint64_t off, uint64_t len)
{
	if (off > e->len || len > e->len - off)
		return NULL;
	return e->p + off;
}

static int elf_map(const char *path, struct elf_view *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	e->p = p;
	e->len = (size_t)st.st_size;
	if (memcmp(e->p, ELFMAG, SELFMAG) || e->p[EI_CLASS] != ELFCLASS64) {
		munmap(p, e->len);
		return -ENOEXEC;
	}
	return 0;
}

int ksyms_load_elf(struct ksyms *k, const char *path, uint64_t bias, const char *image)
{
	struct elf_view e;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int rc = elf_map(path, &e), found = 0;

	if (rc)
		return rc;
	eh = (const Elf64_Ehdr *)e.p;
	sh = at(&e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
	for (int pass = 0; sh && pass < 2 && !found; pass++) {
		uint32_t want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;

		for (unsigned i = 0; i < eh->e_shnum; i++) {
			const Elf64_Sym *sym;
			const char *str;
			uint64_t nsym;

			if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum)
				continue;
			nsym = sh[i].sh_size / sizeof(Elf64_Sym);
			sym = at(&e, sh[i].sh_offset, nsym * sizeof(Elf64_Sym));
			str = at(&e, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size);
			if (!sym || !str)
				continue;
			for (uint64_t j = 0; j < nsym; j++) {
				const char *name;
				size_t max;

				if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC || !sym[j].st_value ||
				    sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= sh[sh[i].sh_link].sh_size)
					continue;
				name = str + sym[j].st_name;
				max = sh[sh[i].sh_link].sh_size - sym[j].st_name;
				if (push(k, sym[j].st_value + bias, sym[j].st_size, name, strnlen(name, max), image,
					 strlen(image))) {
					munmap((void *)e.p, e.len);
					return -ENOMEM;
				}
				found++;
			}
		}
	}
	munmap((void *)e.p, e.len);
	k->sized = true;
	return found ? 0 : -ENOENT;
}

int ksyms_elf_bias(const char *exe, uint64_t map_start, uint64_t map_offset, uint64_t *bias)
{
	struct elf_view e;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	int rc = elf_map(exe, &e);

	if (rc)
		return rc;
	eh = (const Elf64_Ehdr *)e.p;
	*bias = 0;
	rc = -ENOENT;
	ph = at(&e, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
	if (eh->e_type == ET_EXEC) {
		rc = 0;
	} else if (ph) {
		/* the executable PT_LOAD is mapped at bias + p_vaddr from file offset p_offset, both
		 * rounded down to a page alike */
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
				continue;
			*bias = map_start - map_offset - (ph[i].p_vaddr - ph[i].p_offset);
			rc = 0;
			break;
		}
	}
	munmap((void *)e.p, e.len);
	return rc;
}

int kmaps_parse(struct kmaps *m, const char *text)
{
	const char *p = text;
	size_t cap = 0;

	memset(m, 0, sizeof(*m));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024], perms[8], path[256] = "";
		unsigned long long s, e, off;
		int n;

		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %255[^\n]", &s, &e, perms, &off, path);
			if (n >= 4 && perms[2] == 'x') {
				if (m->n == cap) {
					struct kmap *v = realloc(m->v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

					if (!v)
						return -ENOMEM;
					m->v = v;
				}
				m->v[m->n] = (struct kmap){ .start = s, .end = e, .offset = off };
				{
					/* the path column starts after padding spaces */
					const char *q = path;

					while (*q == ' ')
						q++;
					snprintf(m->v[m->n].path, sizeof(m->v[0].path), "%s", q);
				}
				m->n++;
			}
		}
		p = nl ? nl + 1 : p + len;
	}
	return 0;
}

int kmaps_load_self(struct kmaps *m)
{
	char *buf;
	int rc = read_proc_file("/proc/self/maps", &buf);

	if (rc)
		return rc;
	rc = kmaps_parse(m, buf);
	free(buf);
	return rc;
}

const struct kmap *kmaps_find(const struct kmaps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}

void kmaps_free(struct kmaps *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
