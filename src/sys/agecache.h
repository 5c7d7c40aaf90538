/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cache of aged images (fsbench matrix --age-cache DIR): an image aged once is kept in DIR
 * and copied (a reflink where DIR's and the image's filesystem can share blocks, FICLONE; else a
 * sparse copy, SEEK_DATA/SEEK_HOLE) into later experiments' images instead of aging again.
 *
 * An entry is a directory DIR/NAME (NAME: the filesystem type and 16 hex digits of FNV-1a 64
 * over the key) holding "image" and "key". The key is text: the filesystem type, the mkfs
 * command, the image size, the aging recipe (sys/age.h: fill, churn, the sizes histogram's
 * digest, the algorithm's version) and the seed; the key file holds the key, then the image's
 * digest (FNV-1a 64 over the offset and bytes of every 4 KiB block that is not all zeros: holes
 * and zeros alike), then the aging's counts. Entries are input like any other: DIR must be
 * root's (as must every directory above it), an entry and its files are opened with no symbolic
 * link followed, must be root's, not writable by others, one link, the key exactly this one, the
 * image its size and digest; anything else is ignored with the reason, never used, never
 * removed. A new entry is written in a temporary directory of DIR and renamed into place whole.
 * Functions return 0 or -errno; why gets one line. */
#ifndef FSB_SYS_AGECACHE_H
#define FSB_SYS_AGECACHE_H
#include <stddef.h>
#include <stdint.h>

struct age_spec;

#define AGECACHE_KEY_MAX 2048

struct agecache_key {
	char text[AGECACHE_KEY_MAX];
	char name[96];               /* TYPE-HEX16 */
};

/* What the aging did, kept with the entry (the state itself is measured again when used). */
struct agecache_counts {
	uint64_t written, deleted;
	char list_hash[32];
};

void agecache_key(const char *fs, const char *mkfs, uint64_t size_bytes, const struct age_spec *a,
		  uint64_t seed, struct agecache_key *k);
/* DIR (absolute) checked (sys/owned.h's chain: root's, not writable by others) and, when missing
 * and create, made (0700). -EPERM / -errno with why. */
int agecache_dir_check(const char *dir, int create, char *why, size_t len);
/* The entry for k in dir, checked: 0 with *fd (its image, read-only) and its counts; -ENOENT:
 * none; another -errno: one that is not used, why says. */
int agecache_lookup(const char *dir, const struct agecache_key *k, uint64_t size_bytes, int *fd,
		    struct agecache_counts *c, char *why, size_t len);
/* src's content into dst (both regular files of size bytes): a reflink where possible, else a
 * sparse copy; *how says which. */
int agecache_copy(int src, int dst, uint64_t size, const char **how);
/* tmp (a new empty directory in dir, made by the caller) filled from the image src (its
 * content, its digest, k, c) and renamed to dir/NAME. -EEXIST: an entry is there already (left). */
int agecache_store(const char *dir, const char *tmp, const struct agecache_key *k, int src, uint64_t size,
		   const struct agecache_counts *c, const char **how, char *why, size_t len);
#endif
