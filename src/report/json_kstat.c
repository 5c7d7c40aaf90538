/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON for device resolution, kstat deltas, honesty warnings and profiles. Field names carry
 * their units; counts are integers. */
#include "report/json_kstat.h"
#include "report/json.h"

#include <stdint.h>

json_t *blockdev_json(const struct blockdev *b)
{
	json_t *o = json_object(), *st = json_array();

	json_object_set_new(o, "kind", json_string(blockdev_kind_name[b->kind]));
	json_object_set_new(o, "fstype", json_string(b->mount_known && b->mount.fstype[0] ? b->mount.fstype : "unknown"));
	json_object_set_new(o, "device", json_sprintf("%u:%u", b->major, b->minor));
	if (b->kind == BLOCKDEV_NONE)
		return json_object_set_new(o, "stat_devices", st), o;
	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "disk", json_string(b->disk));
	if (b->kind == BLOCKDEV_LOOP)
		json_object_set_new(o, "backing_file", json_string(b->backing_file));
	if (b->kind == BLOCKDEV_DM)
		json_object_set_new(o, "dm_name", json_string(b->dm_name));
	for (unsigned i = 0; i < b->nstat; i++)
		json_array_append_new(st, json_string(b->stat[i]));
	json_object_set_new(o, "stat_devices", st);
	return o;
}

json_t *kstat_json(const struct kstat_delta *d)
{
	json_t *o = json_object(), *disks = json_array();

	json_object_set_new(o, "wall_ns", json_u64(d->wall_ns));
	for (unsigned i = 0; i < d->ndisks; i++) {
		const struct kstat_disk_delta *k = &d->disk[i];
		json_t *x = json_object();

		json_object_set_new(x, "name", json_string(k->name));
		json_object_set_new(x, "found", json_boolean(k->found));
		json_object_set_new(x, "primary", json_boolean(k->primary));
		if (k->found) {
			json_object_set_new(x, "reads_completed", json_u64(k->rd_ios));
			json_object_set_new(x, "reads_merged", json_u64(k->rd_merges));
			json_object_set_new(x, "read_bytes", json_u64(k->rd_bytes));
			json_object_set_new(x, "writes_completed", json_u64(k->wr_ios));
			json_object_set_new(x, "writes_merged", json_u64(k->wr_merges));
			json_object_set_new(x, "write_bytes", json_u64(k->wr_bytes));
			json_object_set_new(x, "io_ms", json_u64(k->io_ms));
			json_object_set_new(x, "time_in_queue_ms", json_u64(k->queue_ms));
			json_object_set_new(x, "util_pct", json_num(k->util_pct));
			json_object_set_new(x, "avg_queue_size", json_num(k->avg_queue));
			json_object_set_new(x, "avg_read_request_bytes", json_num(k->avg_rd_bytes));
			json_object_set_new(x, "avg_write_request_bytes", json_num(k->avg_wr_bytes));
			json_object_set_new(x, "read_mib_per_s", json_num(k->rd_mib_s));
			json_object_set_new(x, "write_mib_per_s", json_num(k->wr_mib_s));
		}
		json_array_append_new(disks, x);
	}
	json_object_set_new(o, "disks", disks);
	if (d->have_cpu) {
		json_t *c = json_object();

		json_object_set_new(c, "cpus", json_integer(d->ncpus));
		for (int i = 0; i < KSTAT_NCPU_FIELDS; i++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_s", kstat_cpu_name[i]);
			json_object_set_new(c, key, json_num(d->cpu_s[i]));
			snprintf(key, sizeof(key), "%s_pct", kstat_cpu_name[i]);
			json_object_set_new(c, key, json_num(d->cpu_pct[i]));
		}
		json_object_set_new(o, "cpu", c);
	}
	if (d->have_vm) {
		json_t *v = json_object();

		for (int i = 0; i < KSTAT_NVM_FIELDS; i++) {
			char key[64];

			if (i < KSTAT_VM_FIRST_GAUGE) {
				json_object_set_new(v, kstat_vm_name[i], json_u64(d->vm[i]));
			} else {
				snprintf(key, sizeof(key), "%s_begin", kstat_vm_name[i]);
				json_object_set_new(v, key, json_u64(d->vm_begin[i]));
				snprintf(key, sizeof(key), "%s_end", kstat_vm_name[i]);
				json_object_set_new(v, key, json_u64(d->vm[i]));
			}
		}
		json_object_set_new(o, "vmstat", v);
	}
	if (d->have_mem) {
		json_t *m = json_object(), *b = json_object(), *e = json_object();

		for (int i = 0; i < KSTAT_NMEM_FIELDS; i++) {
			json_object_set_new(b, kstat_mem_name[i], json_u64(d->mem_begin[i]));
			json_object_set_new(e, kstat_mem_name[i], json_u64(d->mem_end[i]));
		}
		json_object_set_new(m, "unit", json_string("bytes"));
		json_object_set_new(m, "begin", b);
		json_object_set_new(m, "end", e);
		json_object_set_new(o, "meminfo", m);
	}
	return o;
}

json_t *warn_json(const struct warn_list *l)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < l->n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s}", "id", l->w[i].id, "message", l->w[i].msg));
	return a;
}

/* A name from the kernel (another process's comm may be any bytes): as it is when it is UTF-8,
 * else with its non-ASCII bytes as '?', so the entry is never dropped. */
static json_t *json_name(const char *name)
{
	json_t *j = json_string(name);
	char buf[256];
	size_t i;

	if (j)
		return j;
	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)name[i] < 0x80 ? name[i] : '?';
	buf[i] = '\0';
	return json_string(buf);
}

json_t *perf_json(const struct perf_profile *p)
{
	json_t *o = json_object(), *e = json_array(), *other = json_array();

	json_object_set_new(o, "event", json_string("cpu-clock"));
	json_object_set_new(o, "scope", json_string(p->system_wide ? "system" : "process"));
	json_object_set_new(o, "frequency_hz", json_integer(p->hz));
	json_object_set_new(o, "cpus", json_integer(p->ncpus));
	json_object_set_new(o, "idle_excluded", json_boolean(p->system_wide));
	/* samples: the table's (this process and its helper kernel threads), what entries' pct
	 * is of; other_samples and other_pct: the rest of the machine; idle_samples: neither */
	json_object_set_new(o, "samples", json_u64(p->samples));
	json_object_set_new(o, "other_samples", json_u64(p->other_samples));
	json_object_set_new(o, "other_pct", json_num(p->other_pct));
	json_object_set_new(o, "idle_samples", json_u64(p->idle_samples));
	json_object_set_new(o, "callchains", json_boolean(p->callgraph));
	json_object_set_new(o, "lost", json_u64(p->lost));
	json_object_set_new(o, "wall_ns", json_u64(p->wall_ns));
	for (size_t i = 0; i < p->n; i++) {
		json_t *x = json_pack("{s:o,s:o,s:o,s:o,s:o}", "samples", json_u64(p->v[i].samples),
				      "pct", json_num(p->v[i].pct), "app", json_name(p->v[i].app),
				      "image", json_name(p->v[i].image), "symbol", json_name(p->v[i].symbol));

		if (p->callgraph) {
			json_object_set_new(x, "inclusive", json_u64(p->v[i].inclusive));
			json_object_set_new(x, "inclusive_pct", json_num(p->v[i].inclusive_pct));
		}
		json_array_append_new(e, x);
	}
	json_object_set_new(o, "entries", e);
	for (size_t i = 0; i < p->nother; i++)
		json_array_append_new(other, json_pack("{s:o,s:i,s:o,s:o}", "comm", json_name(p->other[i].comm),
						       "pid", (int)p->other[i].pid, "samples",
						       json_u64(p->other[i].samples), "pct",
						       json_num(p->other[i].pct)));
	json_object_set_new(o, "other_processes", other);
	if (p->stacks) {
		json_t *s = json_array();

		for (size_t i = 0; i < p->nstacks; i++)
			json_array_append_new(s, json_pack("{s:o,s:o}", "stack", json_name(p->stacks[i].folded),
							   "count", json_u64(p->stacks[i].count)));
		json_object_set_new(o, "stacks", s);
	}
	return o;
}
