/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sync after a run: text, JSON, and the unmount figure read back (report/afterrun_report.h). */
#include "report/afterrun_report.h"

#include <math.h>

#include "report/json.h"
#include "report/json_kstat.h"
#include "report/kstat_text.h"
#include "report/result_read.h"

#define MIB 1048576.0

void afterrun_text(FILE *out, const struct afterrun *a)
{
	double f[AFTERRUN_NFIGS];

	if (!a->taken) {
		fprintf(out, "\nAfter the run: no sync (%s)\n",
			a->err ? "a target is not a directory this process can sync"
			       : "the run did not end normally");
		return;
	}
	afterrun_figures(a, f);
	if (a->have_k)
		kstat_text_row(out, "after: syncfs", &a->k);
	fprintf(out, "\nAfter the run (outside every timed figure): syncfs of %u filesystem%s %.3f s", a->nfs,
		a->nfs == 1 ? "" : "s", f[AFTERRUN_SYNC_S]);
	if (!isnan(f[AFTERRUN_SYNC_MIB]))
		fprintf(out, ", the devices wrote %.1f MiB", f[AFTERRUN_SYNC_MIB]);
	if (a->have_k && a->k.have_mem)
		fprintf(out, "; dirty %.1f MiB, writeback %.1f MiB before it (system-wide)",
			(double)a->k.mem_begin[KSTAT_DIRTY] / MIB,
			(double)a->k.mem_begin[KSTAT_WRITEBACK] / MIB);
	fputs("\n", out);
}

void afterrun_json(json_t *run, const struct afterrun *a)
{
	json_t *o = json_object_get(run, "after");

	if (!json_is_object(o)) {
		o = json_object();
		json_object_set_new(run, "after", o);
	}
	json_object_set_new(o, "taken", json_boolean(a->taken));
	if (!a->taken)
		return;
	json_object_set_new(o, "filesystems", json_u64(a->nfs));
	json_object_set_new(o, "sync_ns", json_u64(a->sync_ns));
	if (!a->have_k)
		return;
	if (a->k.have_mem)
		json_object_set_new(o, "memory",
				    json_pack("{s:o,s:o,s:o,s:o}", "dirty_bytes_before",
					      json_u64(a->k.mem_begin[KSTAT_DIRTY]), "writeback_bytes_before",
					      json_u64(a->k.mem_begin[KSTAT_WRITEBACK]), "dirty_bytes_after",
					      json_u64(a->k.mem_end[KSTAT_DIRTY]), "writeback_bytes_after",
					      json_u64(a->k.mem_end[KSTAT_WRITEBACK])));
	json_object_set_new(o, "kernel", kstat_json(&a->k));
}

double afterrun_umount_read(const json_t *manifest_run)
{
	const json_t *x = json_object_get(manifest_run, "umount_s");

	if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0 ||
	    json_number_value(x) > 1e9)
		return NAN;
	return json_number_value(x);
}

int afterrun_umount_put(struct rr_result *r, double umount_s)
{
	if (isnan(umount_s) || !r->nruns)
		return 0;
	return rr_figure_put(r, &afterrun_umount_fig, r->nruns - 1, umount_s);
}
