// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * report.c - JSON lines: one flat object per line, written as it is measured.
 */
#include <math.h>
#include <inttypes.h>

#include "bench.h"
#include "bench-priv.h"

static void bench_json_key(struct bench_out *o, const char *key)
{
	fprintf(o->f, "%s\"%s\":", o->first ? "" : ",", key);
	o->first = false;
}

void bench_json_begin(struct bench_out *o, const char *type)
{
	fputc('{', o->f);
	o->first = true;
	bench_json_kv_s(o, "type", type);
}

void bench_json_end(struct bench_out *o)
{
	fputs("}\n", o->f);
	fflush(o->f);
	o->records++;
}

void bench_json_put_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void bench_json_kv_s(struct bench_out *o, const char *key, const char *val)
{
	bench_json_key(o, key);
	bench_json_put_string(o->f, val);
}

void bench_json_kv_u(struct bench_out *o, const char *key, uint64_t val)
{
	bench_json_key(o, key);
	fprintf(o->f, "%" PRIu64, val);
}

void bench_json_kv_i(struct bench_out *o, const char *key, long long val)
{
	bench_json_key(o, key);
	fprintf(o->f, "%lld", val);
}

/* Non-finite numbers have no JSON form: they become null. */
void bench_json_kv_f(struct bench_out *o, const char *key, double val)
{
	bench_json_key(o, key);
	if (isfinite(val))
		fprintf(o->f, "%.6g", val);
	else
		fputs("null", o->f);
}

void bench_json_kv_b(struct bench_out *o, const char *key, bool val)
{
	bench_json_key(o, key);
	fputs(val ? "true" : "false", o->f);
}

void bench_json_kv_null(struct bench_out *o, const char *key)
{
	bench_json_key(o, key);
	fputs("null", o->f);
}
