/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The presentation every workload without a classic format gets (report/workload_report.h). */
#ifndef FSB_REPORT_GENERIC_REPORT_H
#define FSB_REPORT_GENERIC_REPORT_H
#include "report/workload_report.h"

extern const struct workload_report generic_report;
#endif
