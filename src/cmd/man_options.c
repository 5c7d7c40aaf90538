/* fsbench __man-options CMD: the options table as man page text, spliced into fsbench.1 at
 * build time so the man page cannot drift from the table. Also --list for tests. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/opt.h"
#include "workload/fs_mark.h"
#include "workload/tiotest.h"

extern const struct opt_cmd tio_cmd;
void tio_defaults(struct tio_config *c);
extern const struct opt_cmd fsm_cmd;
void fsm_defaults(struct fsm_config *c);
void compare_options(bool list, FILE *out);
void plot_options(bool list, FILE *out);

int cmd_man_options(int argc, char **argv, const char *prog)
{
	bool list = argc == 3 && !strcmp(argv[2], "--list");
	struct tio_config tc;

	if (argc < 2 || argc > 3 || (argc == 3 && !list)) {
		fprintf(stderr, "%s: usage: fsbench __man-options COMMAND [--list]\n", prog);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "tiotest")) {
		tio_defaults(&tc);
		if (list)
			opt_list(&tio_cmd, stdout);
		else
			opt_man(&tio_cmd, &tc, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "fs_mark")) {
		struct fsm_config fc;

		fsm_defaults(&fc);
		if (list)
			opt_list(&fsm_cmd, stdout);
		else
			opt_man(&fsm_cmd, &fc, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "compare") || !strcmp(argv[1], "plot")) {
		(argv[1][0] == 'c' ? compare_options : plot_options)(list, stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return EXIT_USAGE;
}
