// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * doctor.c - `udmem doctor`: look at the running system for the usual
 * reasons a buffer does not work and name each problem with its fix, as
 * text or as JSON.  This file has the output, the command and the checks
 * of the system as a whole (lockdown, modules, CMA, kernel features);
 * doctor-devices.c those of each device (permissions, coherence, IOMMU,
 * memory types).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "doctor.h"
#include "size.h"

static const char *const doc_status_names[] = { "ok", "warn", "fail", "skip" };

void doc_report(struct doc_ctx *c, const char *check, const char *subject,
		enum doc_status st, const char *fix, const char *fmt, ...)
{
	char finding[DOC_TEXT_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(finding, sizeof(finding), fmt, ap);
	va_end(ap);
	c->count[st]++;
	if (c->json) {
		printf("%s\n    {\"check\": ", c->first ? "" : ",");
		bench_json_put_string(stdout, check);
		printf(", \"subject\": ");
		bench_json_put_string(stdout, subject);
		printf(", \"status\": \"%s\", \"finding\": ", doc_status_names[st]);
		bench_json_put_string(stdout, finding);
		printf(", \"fix\": ");
		if (fix)
			bench_json_put_string(stdout, fix);
		else
			fputs("null", stdout);
		putchar('}');
	} else {
		static const char *const tag[] = { "ok  ", "WARN", "FAIL", "skip" };

		printf("%s  %-10s %-22s %s\n", tag[st], check, subject, finding);
		if (fix)
			printf("%-40s fix: %s\n", "", fix);
	}
	c->first = 0;
}

int doc_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		err = ferror(f) ? -EIO : -ENODATA;
		fclose(f);
		return err;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int doc_read_u64(const char *path, uint64_t *val)
{
	char line[64], *end;
	int ret = doc_read_line(path, line, sizeof(line));

	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(line, &end, 0);
	return errno || end == line ? -EINVAL : 0;
}

/* "12.5 MiB" style, for findings. */
static const char *doc_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1ULL << 30))
		snprintf(buf, len, "%.1f GiB", (double)bytes / (1ULL << 30));
	else if (bytes >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1ULL << 20));
	else
		snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
	return buf;
}

/* The release word of the vermagic= string inside a module file; -errno. */
static int doc_ko_vermagic(const char *path, char *out, size_t len)
{
	static const char key[] = "vermagic=";
	char *data, *p, *end;
	struct stat st;
	int fd, ret = -ENOENT;
	ssize_t got;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20)) {
		close(fd);
		return -EINVAL;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	got = read(fd, data, (size_t)st.st_size);
	close(fd);
	if (got == st.st_size) {
		data[got] = '\0';
		end = data + got;
		for (p = data; p < end; p++) {
			p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1);
			if (!p)
				break;
			if (p == data || p[-1] == '\0') {
				p += sizeof(key) - 1;
				snprintf(out, len, "%.*s", (int)strcspn(p, " "), p);
				ret = 0;
				break;
			}
		}
	} else {
		ret = -EIO;
	}
	free(data);
	return ret;
}

/* The release the installed module NAME was built for, from modinfo. */
static int doc_modinfo_vermagic(const char *name, char *out, size_t len)
{
	char cmd[128], line[DOC_TEXT_MAX];
	FILE *p;
	int ret = -ENOENT;

	snprintf(cmd, sizeof(cmd), "modinfo -F vermagic %s 2>/dev/null", name);
	p = popen(cmd, "re");
	if (!p)
		return -errno;
	if (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n ")] = '\0';
		if (line[0]) {
			snprintf(out, len, "%s", line);
			ret = 0;
		}
	}
	pclose(p);
	return ret;
}

/* The fixes, one line each. */
static const char doc_fix_build[] =
	"rebuild for this kernel: 'dkms autoinstall' or 'make -C kernel KERNEL_SRC=<its headers>'";
static const char doc_fix_install[] =
	"install udmem-dkms, or 'make -C kernel' then 'make -C kernel modules_install'";
static const char doc_fix_signed[] =
	"modprobe it; under lockdown sign it with a trusted key (DKMS's MOK, mokutil --import)";
static const char doc_fix_load[] =
	"modprobe it (or insmod the .ko); name it in /etc/modules-load.d/ to load it at boot";
static const char doc_fix_cma[] =
	"boot with cma=<size> (kernel command line) or size the linux,cma reserved-memory node";
static const char doc_fix_nocma[] =
	"a kernel with CONFIG_CMA and cma=<size>, or buffers from a reserved-memory pool (DT)";
static const char doc_fix_lockdown[] =
	"sign the modules with a trusted key (DKMS's MOK: mokutil --import) or disable it";

/* One module: loaded, and if not, whether a build for this kernel exists. */
static int doc_check_module(struct doc_ctx *c, const char *name)
{
	char sysdir[64], path[PATH_MAX], ver[64] = "", magic[DOC_TEXT_MAX];
	const char *from;
	int i, ret;

	snprintf(sysdir, sizeof(sysdir), "/sys/module/%s", name);
	for (i = 12; sysdir[i]; i++)
		if (sysdir[i] == '-')
			sysdir[i] = '_';
	if (!access(sysdir, F_OK)) {
		snprintf(path, sizeof(path), "%s/version", sysdir);
		doc_read_line(path, ver, sizeof(ver));
		doc_report(c, "module", name, DOC_OK, NULL,
			   "loaded%s%s (the running kernel accepted its vermagic)",
			   ver[0] ? ", version " : "", ver);
		return 1;
	}
	if (c->module_dir) {
		snprintf(path, sizeof(path), "%s/%s.ko", c->module_dir, name);
		from = path;
		ret = doc_ko_vermagic(path, magic, sizeof(magic));
	} else {
		from = "modinfo";
		ret = doc_modinfo_vermagic(name, magic, sizeof(magic));
	}
	if (ret) {
		doc_report(c, "module", name, DOC_WARN, doc_fix_install,
			   "not loaded and not installed for %s (%s: %s)",
			   c->uts.release, from, strerror(-ret));
		return 0;
	}
	if (strcmp(magic, c->uts.release)) {
		doc_report(c, "module", name, DOC_FAIL, doc_fix_build,
			   "not loaded; %s was built for kernel %s, this is %s",
			   from, magic, c->uts.release);
		return 0;
	}
	doc_report(c, "module", name, DOC_WARN,
		   c->lockdown ? doc_fix_signed : doc_fix_load,
		   "not loaded (a build for %s is installed)", c->uts.release);
	return 0;
}

static void doc_check_modules(struct doc_ctx *c)
{
	int dmabuf = doc_check_module(c, "u-dma-buf");
	int iomem;

	doc_check_module(c, "u-dma-buf-mgr");
	iomem = doc_check_module(c, "uiomem");
	if (!dmabuf && !iomem)
		doc_report(c, "module", "drivers", DOC_FAIL,
			   "load u-dma-buf (buffers) or uiomem (device memory); see the lines above",
			   "neither u-dma-buf nor uiomem is loaded: there is no buffer to open");
}

/* A kB value of /proc/meminfo; -1 if the line is absent. */
static long long doc_meminfo(const char *key)
{
	char line[128];
	size_t n = strlen(key);
	long long val = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			val = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

static void doc_check_cma(struct doc_ctx *c)
{
	long long total = doc_meminfo("CmaTotal"), freekb = doc_meminfo("CmaFree");
	uint64_t held = 0, sz;
	char path[PATH_MAX], a[32], b[32], d[32], fix[DOC_TEXT_MAX];
	int i;

	for (i = 0; c->bufs && c->bufs[i]; i++) {
		snprintf(path, sizeof(path), "/sys/class/u-dma-buf/%s/size", c->bufs[i]);
		if (!doc_read_u64(path, &sz))
			held += sz;
	}
	if (total <= 0) {
		/* Without CMA only the page allocator's largest block is contiguous. */
		if (c->want > (4ULL << 20)) {
			doc_report(c, "cma", "CmaTotal", DOC_FAIL,
				   total < 0 ? doc_fix_nocma : doc_fix_cma,
				   "no CMA area, and %s is wanted: without CMA over 4 MiB fails",
				   doc_size(c->want, a, sizeof(a)));
		} else {
			doc_report(c, "cma", "CmaTotal", DOC_WARN,
				   total < 0 ? doc_fix_nocma : doc_fix_cma,
				   "no CMA area%s: buffers over 4 MiB fail (%s held by buffers)",
				   total < 0 ? " (no CONFIG_CMA)" : "",
				   doc_size(held, b, sizeof(b)));
		}
		return;
	}
	if (c->want && c->want > (uint64_t)freekb << 10) {
		snprintf(fix, sizeof(fix),
			 "boot with cma=%" PRIu64 "M (or size the linux,cma reserved-memory node)",
			 ((c->want + held) >> 20) + 16);
		doc_report(c, "cma", "CmaFree", DOC_FAIL, fix,
			   "%s wanted, only %s of CMA free (total %s, buffers hold %s)",
			   doc_size(c->want, a, sizeof(a)),
			   doc_size((uint64_t)freekb << 10, b, sizeof(b)),
			   doc_size((uint64_t)total << 10, d, sizeof(d)),
			   doc_size(held, path, sizeof(path)));
		return;
	}
	doc_report(c, "cma", "CmaFree", DOC_OK, NULL,
		   "%s of %s CMA free; buffers hold %s%s%s",
		   doc_size((uint64_t)freekb << 10, a, sizeof(a)),
		   doc_size((uint64_t)total << 10, b, sizeof(b)),
		   doc_size(held, d, sizeof(d)), c->want ? "; wanted " : "",
		   c->want ? doc_size(c->want, path, sizeof(path)) : "");
}

static void doc_check_lockdown(struct doc_ctx *c)
{
	static const char sb[] =
		"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e98c0e5ff8c2";
	char line[128] = "", *open_b, *close_b;
	unsigned char v[5];
	int fd, ret;

	ret = doc_read_line("/sys/kernel/security/lockdown", line, sizeof(line));
	open_b = strchr(line, '[');
	close_b = open_b ? strchr(open_b, ']') : NULL;
	if (ret || !close_b) {
		doc_report(c, "lockdown", "lockdown", DOC_SKIP, NULL,
			   "not known (%s: securityfs not mounted or no lockdown LSM)",
			   ret ? strerror(-ret) : "unreadable");
	} else {
		*close_b = '\0';
		c->lockdown = strcmp(open_b + 1, "none") != 0;
		doc_report(c, "lockdown", "lockdown", c->lockdown ? DOC_WARN : DOC_OK,
			   c->lockdown ? doc_fix_lockdown : NULL,
			   "%s%s", open_b + 1, c->lockdown ?
			   ": unsigned modules are refused and /dev/mem is closed" : "");
	}
	fd = open(sb, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		doc_report(c, "lockdown", "secure-boot", DOC_SKIP, NULL,
			   "not an EFI boot, or efivarfs not mounted");
		return;
	}
	ret = read(fd, v, sizeof(v)) == (ssize_t)sizeof(v);
	close(fd);
	doc_report(c, "lockdown", "secure-boot", ret && v[4] ? DOC_WARN : DOC_OK,
		   ret && v[4] ? "modules must be signed (mokutil --import the DKMS key)" : NULL,
		   "Secure Boot %s", !ret ? "state unreadable" : v[4] ? "on" : "off");
}

static int doc_kernel_has(struct doc_ctx *c, int major, int minor)
{
	return c->kmajor > major || (c->kmajor == major && c->kminor >= minor);
}

/* Whether /proc/kallsyms names SYM: 1, 0, or -1 when unreadable. */
static int doc_kallsyms(const char *sym)
{
	char line[256], *name;
	FILE *f = fopen("/proc/kallsyms", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		name = strrchr(line, ' ');
		if (name && !strncmp(name + 1, sym, strlen(sym)) &&
		    (name[1 + strlen(sym)] == '\n' || name[1 + strlen(sym)] == '\t'))
			found = 1;
	}
	fclose(f);
	return found;
}

static void doc_check_features(struct doc_ctx *c)
{
	static const struct {
		const char *name, *what;
		int major, minor;
	} feat[] = {
		{ "pmd-mappings", "2 MiB (PMD) user mappings of buffers", 6, 12 },
		{ "iio-dmabuf", "IIO buffers attached to a DMA-BUF", 6, 11 },
		{ "usb-ffs-dmabuf", "FunctionFS (USB gadget) DMA-BUF transfers", 6, 9 },
	};
	char fix[DOC_TEXT_MAX];
	size_t i;
	int has;

	for (i = 0; i < ARRAY_SIZE(feat); i++) {
		has = doc_kernel_has(c, feat[i].major, feat[i].minor);
		snprintf(fix, sizeof(fix), "kernel %d.%d or later for %s",
			 feat[i].major, feat[i].minor, feat[i].what);
		doc_report(c, "kernel", feat[i].name, has ? DOC_OK : DOC_WARN,
			   has ? NULL : fix, "%s: %s on %s", feat[i].what,
			   has ? "available" : "not", c->uts.release);
	}
	has = doc_kallsyms("dma_buf_export");
	if (has < 0)
		doc_report(c, "kernel", "dmabuf", DOC_SKIP, NULL,
			   "/proc/kallsyms unreadable: DMA-BUF support not known");
	else
		doc_report(c, "kernel", "dmabuf", has ? DOC_OK : DOC_WARN,
			   has ? NULL : "a kernel with CONFIG_DMA_SHARED_BUFFER for udmem export",
			   "DMA-BUF export %s", has ? "available (dma_buf_export)" :
			   "unavailable: the kernel has no DMA-BUF core");
}

static const char doc_help[] =
	"Usage: udmem doctor [--json] [--want SIZE] [--module-dir DIR]\n\n"
	"Check the running system for what buffers need: modules loaded and\n"
	"built for this kernel, CMA, device permissions, coherence, IOMMU,\n"
	"lockdown, kernel features and memory types.  Each check prints ok,\n"
	"WARN, FAIL or skip with a finding and, for a problem, its fix.\n"
	"  --json            one JSON object (keys in docs/cli.md)\n"
	"  --want SIZE       a buffer of SIZE is about to be requested: is there CMA?\n"
	"  --module-dir DIR  read the vermagic of DIR/<module>.ko instead of modinfo's\n"
	"Exit status: 0 no check failed, 1 a check failed, 2 usage error.\n";

int cli_cmd_doctor(int argc, char **argv)
{
	struct cli_opt opts[] = {
		{ "json", NULL, 1 }, { "want", NULL, 0 }, { "module-dir", NULL, 0 },
	};
	struct doc_ctx c;
	char *pos[1];
	int ret, npos;

	ret = cli_parse_args("doctor", argc, argv, opts, ARRAY_SIZE(opts), pos, 0, &npos);
	if (ret) {
		fputs(doc_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	memset(&c, 0, sizeof(c));
	c.json = !!opts[0].value;
	c.first = 1;
	c.module_dir = opts[2].value;
	if (opts[1].value && (udmem_parse_size(opts[1].value, &c.want) || !c.want)) {
		cli_usage_error("doctor", "bad size '%s'", opts[1].value);
		return CLI_EXIT_USAGE;
	}
	uname(&c.uts);
	if (sscanf(c.uts.release, "%d.%d", &c.kmajor, &c.kminor) != 2)
		c.kmajor = 0;
	if (udmem_buffer_list(&c.bufs) < 0)
		c.bufs = NULL;
	if (udmem_region_list(&c.regs) < 0)
		c.regs = NULL;
	if (c.json) {
		printf("{\"udmem_doctor\": 1, \"kernel\": ");
		bench_json_put_string(stdout, c.uts.release);
		printf(", \"machine\": ");
		bench_json_put_string(stdout, c.uts.machine);
		printf(", \"uid\": %u, \"checks\": [", (unsigned int)getuid());
	}
	doc_check_lockdown(&c);
	doc_check_modules(&c);
	doc_check_cma(&c);
	doc_check_permissions(&c);
	doc_check_buffers(&c);
	doc_check_features(&c);
	doc_check_memtype(&c);
	if (c.json) {
		printf("\n  ],\n  \"summary\": {\"ok\": %d, \"warn\": %d, \"fail\": %d, ",
		       c.count[DOC_OK], c.count[DOC_WARN], c.count[DOC_FAIL]);
		printf("\"skip\": %d}}\n", c.count[DOC_SKIP]);
	} else {
		printf("\n%d ok, %d warn, %d fail, %d skip\n", c.count[DOC_OK],
		       c.count[DOC_WARN], c.count[DOC_FAIL], c.count[DOC_SKIP]);
	}
	udmem_list_free(c.bufs);
	udmem_list_free(c.regs);
	return c.count[DOC_FAIL] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
