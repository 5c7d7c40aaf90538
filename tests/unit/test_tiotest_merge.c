/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tio_merge (fsbench-mpi's merge of tiotest's results from ranks side by side): a phase that a
 * stopped rank entered without doing an op merges with the same phase not run on another rank
 * (the stop reached the ranks on either side of the phase loop's check, t9030); any other
 * difference in the phases run is a configuration mismatch, -EINVAL. */
#include "check.h"
#include "workload/tiotest_int.h"

#include <inttypes.h>
#include <string.h>

/* a result with phase 0 run (OPS0 ops, incomplete when STOPPED) and phase 1 run with OPS1 ops
 * when OPS1 >= 0 */
static void make(struct tio_result *r, bool stopped, uint64_t ops0, int ops1)
{
	memset(r, 0, sizeof(*r));
	r->stopped_in = -1;
	opstat_init(&r->total);
	for (int p = 0; p < TIO_NPHASES; p++)
		opstat_init(&r->phase[p].st);
	r->head.complete = !stopped;
	r->phase[0].ran = true;
	r->phase[0].complete = !stopped;
	r->phase[0].st.ops = ops0;
	if (stopped)
		r->stopped_in = 0;
	if (ops1 >= 0) {
		r->phase[1].ran = true;
		r->phase[1].st.ops = (uint64_t)ops1;
		r->phase[1].complete = !stopped;
		if (stopped)
			r->stopped_in = 1;
	}
}

static const struct {
	const char *what;
	bool stopped_a, stopped_b;
	/* phase 1's ops on each side, -1: not run */
	int ops1_a, ops1_b;
	int rc;
	/* phase 1 run in the merged result */
	bool ran1;
	int stopped_in;
} cases[] = {
	{ "stopped, empty phase on the first", true, true, 0, -1, 0, false, 0 },
	{ "stopped, empty phase on the second", true, true, -1, 0, 0, false, 0 },
	{ "stopped, both ran it empty", true, true, 0, 0, 0, true, 1 },
	{ "stopped, a phase with ops on one side only", true, true, 3, -1, -EINVAL, true, 1 },
	{ "complete runs, phases differ", false, false, 0, -1, -EINVAL, true, -1 },
	{ "complete first, empty second", false, true, -1, 0, -EINVAL, false, -1 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tio_result a, b;
		int rc;

		make(&a, cases[i].stopped_a, 10, cases[i].ops1_a);
		make(&b, cases[i].stopped_b, 5, cases[i].ops1_b);
		rc = tio_merge(&a, &b);
		CHECK(rc == cases[i].rc, "%s: rc %d, expected %d", cases[i].what, rc, cases[i].rc);
		if (!rc) {
			CHECK(a.phase[1].ran == cases[i].ran1, "%s: phase 1 ran %d", cases[i].what,
			      a.phase[1].ran);
			CHECK(a.phase[0].st.ops == 15, "%s: phase 0 ops %" PRIu64, cases[i].what,
			      a.phase[0].st.ops);
			CHECK(a.stopped_in == cases[i].stopped_in, "%s: stopped_in %d, expected %d",
			      cases[i].what, a.stopped_in, cases[i].stopped_in);
		}
		tio_result_free(&a);
		tio_result_free(&b);
	}
	return check_done("test_tiotest_merge");
}
