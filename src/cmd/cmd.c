/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every command decides the same way: the exit status for an errno and for a signal. */
#include "cmd/cmd.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "core/run.h"

int cmd_exit_for_errno(int err)
{
	switch (err < 0 ? -err : err) {
	/* the system refuses this benchmark here, whatever it measures: no permission, a
	 * read-only filesystem, no O_DIRECT (EINVAL at open is turned into EOPNOTSUPP where it
	 * is known to mean that), a device another program (or fsbench -R run) holds */
	case EACCES:
	case EPERM:
	case EROFS:
	case EOPNOTSUPP:
	case EBUSY:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAILED;
	}
}

int cmd_exit_for_signal(int sig)
{
	/* a reader that went away (| head) ended the run: a failure, not an interrupt */
	return sig == SIGPIPE ? EXIT_FAILED : 128 + sig;
}

bool cmd_signal_quiet(int sig)
{
	/* nobody reads standard output any more, and stderr usually goes to the same place */
	return sig == SIGPIPE;
}
