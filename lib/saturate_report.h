/* The saturation check's report: what saturate_judge decided, drawn for
 * a person (text: the steps, the CPUs' bars by processor group, NUMA
 * node and kind, the cores, the findings with their fixes), for a program
 * (one JSON object; all of the JSON is written here), and as Prometheus
 * series for node_exporter's textfile collector (saturate --textfile).
 * It decides nothing: every figure is the judgement's. */
#ifndef CPUPOLICY_SATURATE_REPORT_H
#define CPUPOLICY_SATURATE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "saturate.h"

/* saturate_report.c */
void saturate_report_text(const struct saturate_input *in,
			  const struct saturate_result *r, FILE *out);
void saturate_report_json(const struct saturate_input *in,
			  const struct saturate_result *r, FILE *out);
void saturate_report_metrics(const struct saturate_input *in,
			     const struct saturate_result *r, long long when,
			     FILE *out);
void saturate_report_attempt(bool skipped, double busy, double limit,
			     long long when, FILE *out);

#endif
