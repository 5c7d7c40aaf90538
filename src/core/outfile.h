/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every file fsbench writes (--json, the folded stacks, fs_mark's -l log, plot -o) and its
 * standard output: where a result may go, how it is replaced, and every write checked.
 *
 * The rules (fsbench(1), OUTPUT FILES):
 *  - "-" is standard output.
 *  - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name the process's own file
 *    descriptor N, which is written in place (a dup of it), whatever it is open on (terminal,
 *    pipe, socket, FIFO, regular file), except a block device or a descriptor not open for
 *    writing. Nothing is ever renamed onto these names.
 *  - A character device or a FIFO named as such (not through a symbolic link) is written in
 *    place: /dev/null, /dev/full, a FIFO a reader waits on.
 *  - A regular file, or a name that does not exist yet, in REPLACE mode is written to a new
 *    temporary in the same directory (random name, O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644
 *    less the umask) which is renamed onto the named path once every write and the close
 *    succeeded: the file is complete, or absent with the previous one kept. In APPEND mode it
 *    is opened O_APPEND|O_CREAT|O_NOFOLLOW and must be a regular file; STREAM mode opens it
 *    the same way and truncates it (a live record must be there even if fsbench is killed).
 *  - Refused: a symbolic link at the final component (other than the names above), a block
 *    device, a directory, a socket, a parent that is not an existing directory, a name longer
 *    than NAME_MAX or a path longer than PATH_MAX, and a file on a kernel interface
 *    filesystem (proc, sysfs, debugfs, ...) or in /dev's filesystem other than a device named
 *    explicitly.
 * Errors are -errno: the first failed write's errno is kept (ENOSPC stays ENOSPC), and the
 * refusals come with a one-line reason in err ("is a symbolic link", "is a block device"). */
#ifndef FSB_OUTFILE_H
#define FSB_OUTFILE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum outfile_mode {
	OUTFILE_REPLACE,         /* results: complete or absent */
	OUTFILE_APPEND,          /* logs (fs_mark -l): appended to, as fs_mark does */
	OUTFILE_STREAM,          /* --stream: a regular file truncated and written in place, so
				  * that what was flushed survives the process (no temporary) */
};

struct outfile {
	FILE *f;                 /* write through this; a failed write is kept in err */
	/* private */
	int fd;
	int dirfd;               /* REPLACE of a regular file: the parent directory; else -1 */
	int err;                 /* first failed write's errno, 0 while all went well */
	bool in_place;           /* a device, FIFO or descriptor: no temporary, no rename */
	char name[NAME_MAX + 1]; /* REPLACE: the final component, renamed onto at commit */
	char tmp[NAME_MAX + 16]; /* REPLACE: the temporary's name in dirfd */
};

/* Before a run: could a result be written to path later? 0, or -errno with the reason (no
 * path, no newline) in err. Creates nothing and opens nothing that could block (a FIFO). */
int outfile_check(const char *path, enum outfile_mode mode, char *err, size_t errlen);
/* Opens path for writing by the rules above (a FIFO's open waits for a reader). NULL with
 * *rc = -errno and the reason in err. */
struct outfile *outfile_open(const char *path, enum outfile_mode mode, int *rc, char *err,
			     size_t errlen);
/* 0, or the errno of the first write that failed so far (after fflush(of->f) for buffered
 * data), negated. For a log that must stop the run at its first failed write. */
int outfile_error(struct outfile *of);
/* Flushes, closes (both checked) and, for a temporary, renames it onto the named path. 0 or
 * -errno; on failure the temporary is removed and the previous file is untouched. Frees of. */
int outfile_commit(struct outfile *of);
/* Drops what was written (the temporary is removed; in place, nothing can be undone) and
 * frees of. NULL is fine. */
void outfile_abort(struct outfile *of);
/* Whether path names the process's standard output ("-", /dev/stdout, /dev/fd/1,
 * /proc/self/fd/1): an EPIPE there means the reader went away, said by the exit status. */
bool outfile_is_stdout(const char *path);

/* len - 1 (at most 12) random letters and digits and a NUL, for a name that must not be
 * guessed (a temporary's, a work directory's); from getrandom, or the clock and the pid before
 * the kernel has entropy (a guessed name then only makes an O_EXCL open or a mkdir fail). */
void outfile_random_name(char *buf, size_t len);
/* First thing in main: file descriptors 0, 1 and 2 that are closed get /dev/null, so that a
 * file fsbench opens later (fs_mark's log) never becomes standard output or error. Then
 * standard output keeps the errno of its first failed write for outfile_close_stdout (glibc
 * drops a failed buffer and forgets why). 0 or -errno. */
int outfile_std_fds(void);
/* Last thing in main (coreutils' close_stdout): flushes standard output and closes fd 1, each
 * checked. 0, or -errno of the first failure (-EPIPE: the reader went away). */
int outfile_close_stdout(void);
#endif
