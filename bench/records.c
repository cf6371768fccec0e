// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * records.c - reading JSON lines back: the flat objects `udmem bench --json`
 * writes (string, number, true, false and null values, no nesting).
 * Lines that are not such objects are ignored, so a console log with
 * other lines around the records also loads.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-priv.h"

/* Parse a JSON string at *p (after the quote) into out; advance *p. */
static int bench_json_string(const char **p, char *out, size_t len)
{
	const char *s = *p;
	char hex[5] = "";
	size_t n = 0;

	while (*s && *s != '"') {
		char ch = *s++;

		if (ch == '\\') {
			ch = *s++;
			switch (ch) {
			case 'n':
				ch = '\n';
				break;
			case 't':
				ch = '\t';
				break;
			case 'u':
				if (strlen(s) < 4)
					return -EINVAL;
				memcpy(hex, s, 4);
				ch = (char)strtol(hex, NULL, 16);
				s += 4;
				break;
			case '\0':
				return -EINVAL;
			default:
				break;
			}
		}
		if (out && n + 1 < len)
			out[n++] = ch;
	}
	if (*s != '"')
		return -EINVAL;
	if (out && len)
		out[n] = '\0';
	*p = s + 1;
	return 0;
}

static const char *bench_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

/*
 * The value of key in a one-line object: strings unescaped, other values
 * as written.  0 when found, -ENOENT when absent, -EINVAL when malformed.
 */
int bench_json_get(const char *line, const char *key, char *out, size_t len)
{
	const char *s = bench_skip_ws(line);
	char k[64];

	if (*s++ != '{')
		return -EINVAL;
	for (;;) {
		bool match;

		s = bench_skip_ws(s);
		if (*s == '}')
			return -ENOENT;
		if (*s++ != '"' || bench_json_string(&s, k, sizeof(k)))
			return -EINVAL;
		match = !strcmp(k, key);
		s = bench_skip_ws(s);
		if (*s++ != ':')
			return -EINVAL;
		s = bench_skip_ws(s);
		if (*s == '"') {
			s++;
			if (bench_json_string(&s, match ? out : NULL, len))
				return -EINVAL;
		} else {
			size_t n = strcspn(s, ",} \t\r\n");

			if (!n || *s == '{' || *s == '[')
				return -EINVAL;
			if (match)
				snprintf(out, len, "%.*s", (int)n, s);
			s += n;
		}
		if (match)
			return 0;
		s = bench_skip_ws(s);
		if (*s == ',')
			s++;
		else if (*s != '}')
			return -EINVAL;
	}
}

static double bench_json_num(const char *line, const char *key)
{
	char v[64], *end;
	double d;

	if (bench_json_get(line, key, v, sizeof(v)))
		return NAN;
	d = strtod(v, &end);
	return end == v ? NAN : d;
}

static void bench_json_text(const char *line, const char *key, char *out,
			    size_t len)
{
	if (bench_json_get(line, key, out, len))
		out[0] = '\0';
}

static int bench_rec_parse(struct bench_rec *r, const char *line)
{
	char v[16];
	double d;

	memset(r, 0, sizeof(*r));
	if (bench_json_get(line, "type", r->type, sizeof(r->type)))
		return -EINVAL;
	bench_json_text(line, "target", r->target, sizeof(r->target));
	bench_json_text(line, "test", r->test, sizeof(r->test));
	bench_json_text(line, "access", r->access, sizeof(r->access));
	bench_json_text(line, "sync", r->sync, sizeof(r->sync));
	bench_json_text(line, "method", r->method, sizeof(r->method));
	bench_json_text(line, "direction", r->direction, sizeof(r->direction));
	bench_json_text(line, "class", r->klass, sizeof(r->klass));
	bench_json_text(line, "unit", r->unit, sizeof(r->unit));
	d = bench_json_num(line, "size");
	r->size = isnan(d) ? 0 : (uint64_t)d;
	d = bench_json_num(line, "test_size");
	r->test_size = isnan(d) ? 0 : (uint64_t)d;
	d = bench_json_num(line, "offset");
	r->offset = isnan(d) ? 0 : (uint64_t)d;
	r->median = bench_json_num(line, "median");
	r->min = bench_json_num(line, "min");
	r->max = bench_json_num(line, "max");
	r->ratio = bench_json_num(line, "ratio");
	r->minflt = bench_json_num(line, "minflt");
	r->pmd_entries = bench_json_num(line, "pmd_entries");
	r->pte_entries = bench_json_num(line, "pte_entries");
	r->sg_entries = bench_json_num(line, "sg_entries");
	r->pages = bench_json_num(line, "pages");
	r->us_per_mib = bench_json_num(line, "us_per_mib");
	r->ops_map = bench_json_num(line, "cache_ops_map");
	r->ops_sync = bench_json_num(line, "cache_ops_sync");
	r->batch = bench_json_num(line, "batch");
	r->submit = bench_json_num(line, "submit");
	r->cpu_copy = bench_json_num(line, "cpu_copy");
	bench_json_text(line, "channel", r->channel, sizeof(r->channel));
	r->kbps = bench_json_num(line, "kbps");
	r->dmatest_kbps = bench_json_num(line, "dmatest_kbps");
	r->dmatest_ratio = bench_json_num(line, "dmatest_ratio");
	r->verified = !bench_json_get(line, "verified", v, sizeof(v)) && !strcmp(v, "true");
	bench_json_text(line, "clock", r->clock, sizeof(r->clock));
	bench_json_text(line, "mode", r->mode, sizeof(r->mode));
	r->write_mbs = bench_json_num(line, "write_mbs");
	r->read_mbs = bench_json_num(line, "read_mbs");
	r->first_minflt = bench_json_num(line, "first_minflt");
	r->faults_per_mib = bench_json_num(line, "faults_per_mib");
	r->violations = bench_json_num(line, "violations");
	r->ratio_write = bench_json_num(line, "ratio_write");
	r->ratio_read = bench_json_num(line, "ratio_read");
	r->ratio_sync = bench_json_num(line, "ratio_sync");
	bench_json_text(line, "exporter", r->exporter, sizeof(r->exporter));
	bench_json_text(line, "sg_source", r->sg_source, sizeof(r->sg_source));
	bench_json_text(line, "mapping", r->mapping, sizeof(r->mapping));
	bench_json_text(line, "memtype", r->memtype, sizeof(r->memtype));
	r->syscalls = bench_json_num(line, "syscalls");
	if (isnan(r->syscalls))
		r->syscalls = bench_json_num(line, "syscalls_per_transfer");
	r->cache_ops = bench_json_num(line, "cache_ops");
	r->barriers = bench_json_num(line, "barriers");
	bench_json_text(line, "cache_ops_source", r->ops_source,
			sizeof(r->ops_source));
	if (!strcmp(r->type, "meta")) {
		char kernel[64] = "", arch[24] = "", machine[64] = "";

		bench_json_text(line, "kernel", kernel, sizeof(kernel));
		bench_json_text(line, "arch", arch, sizeof(arch));
		bench_json_text(line, "machine", machine, sizeof(machine));
		snprintf(r->text, sizeof(r->text), "%s %s, %s", arch, kernel,
			 machine);
		r->emulated = !bench_json_get(line, "emulated", v, sizeof(v)) &&
			      !strcmp(v, "true");
	} else if (!strcmp(r->type, "skip") || !strcmp(r->type, "error")) {
		bench_json_text(line, !strcmp(r->type, "skip") ? "reason" :
				"message", r->text, sizeof(r->text));
	}
	return 0;
}

int bench_run_load_mem(struct bench_run *run, const char *text)
{
	const char *line = text;
	int cap = 0;

	run->recs = NULL;
	run->count = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *brace = memchr(line, '{', n);
		char *copy;

		if (brace) {
			copy = strndup(brace, n - (brace - line));
			if (!copy)
				goto nomem;
			if (run->count == cap) {
				struct bench_rec *nr;

				cap = cap ? cap * 2 : 64;
				nr = realloc(run->recs, cap * sizeof(*nr));
				if (!nr) {
					free(copy);
					goto nomem;
				}
				run->recs = nr;
			}
			if (!bench_rec_parse(&run->recs[run->count], copy))
				run->count++;
			free(copy);
		}
		line = nl ? nl + 1 : NULL;
	}
	return run->count ? 0 : -ENODATA;
nomem:
	bench_run_free(run);
	return -ENOMEM;
}

int bench_run_load(struct bench_run *run, const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0, len = 0;
	int err;

	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *nt = realloc(text, cap + 65536);

			if (!nt) {
				free(text);
				fclose(f);
				return -ENOMEM;
			}
			text = nt;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (!n)
			break;
	}
	fclose(f);
	text[len] = '\0';
	err = bench_run_load_mem(run, text);
	free(text);
	return err;
}

void bench_run_free(struct bench_run *run)
{
	free(run->recs);
	run->recs = NULL;
	run->count = 0;
}
