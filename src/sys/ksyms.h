/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Address -> (image, symbol) for a profile: kernel addresses from /proc/kallsyms (module name
 * as the image, else "vmlinux"), fsbench's own code from its ELF .symtab (PIE load bias from
 * /proc/self/maps), other user addresses grouped by the mapping that holds them. */
#ifndef FSB_SYS_KSYMS_H
#define FSB_SYS_KSYMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint64_t size;           /* ELF symbols; 0 for kallsyms (up to the next symbol) */
	uint32_t name, image;    /* offsets into the arena: use ksym_name(), ksym_image() */
};

/* A sorted symbol table; names live in one arena. */
struct ksyms {
	struct ksym *v;
	size_t n, cap;
	char *arena;
	size_t arena_len, arena_cap;
	bool restricted;         /* kallsyms showed only zero addresses (kptr_restrict) */
	bool sized;              /* ELF symbols: an address past addr + size is not the symbol's */
};

/* /proc/kallsyms text symbols. Returns 0 (check ->restricted), or -errno. */
int ksyms_load_kernel(struct ksyms *k);
/* The same from text, for tests. */
int ksyms_parse_kallsyms(struct ksyms *k, const char *text);
/* Functions from an ELF file's .symtab (else .dynsym), shifted by bias, image name given. */
int ksyms_load_elf(struct ksyms *k, const char *path, uint64_t bias, const char *image);
/* Sort after loading. */
void ksyms_sort(struct ksyms *k);
/* The symbol holding addr, or NULL. kallsyms entries reach up to the next symbol; in a table
 * loaded from ELF (sized) a symbol covers only [addr, addr + size). */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr);
void ksyms_free(struct ksyms *k);

static inline const char *ksym_name(const struct ksyms *k, const struct ksym *s)
{
	return k->arena + s->name;
}

/* "vmlinux", "ext4" (a module), "fsbench" */
static inline const char *ksym_image(const struct ksyms *k, const struct ksym *s)
{
	return k->arena + s->image;
}

/* One /proc/PID/maps executable mapping. */
struct kmap {
	uint64_t start, end, offset;
	char path[256];          /* "" for anonymous, "[vdso]" ... */
};

struct kmaps {
	struct kmap *v;
	size_t n;
};

/* Executable mappings from maps text (for tests) or from /proc/self/maps. */
int kmaps_parse(struct kmaps *m, const char *text);
int kmaps_load_self(struct kmaps *m);
const struct kmap *kmaps_find(const struct kmaps *m, uint64_t addr);
void kmaps_free(struct kmaps *m);

/* The load bias of the ELF file exe (what to add to its symbol values) from the start and file
 * offset of its executable mapping: 0 for ET_EXEC. Returns 0 or -errno. */
int ksyms_elf_bias(const char *exe, uint64_t map_start, uint64_t map_offset, uint64_t *bias);
#endif
