// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * doctor.c - `udmem doctor`: look at the running system for the usual
 * reasons a buffer does not work (modules, CMA, permissions, coherence,
 * IOMMU, lockdown, kernel features, memory types) and name each problem
 * with its fix, as text or as JSON.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "size.h"

#define DOC_TEXT_MAX	256

enum doc_status { DOC_OK, DOC_WARN, DOC_FAIL, DOC_SKIP };

static const char *const doc_status_names[] = { "ok", "warn", "fail", "skip" };

/* What the checks share: the options, the kernel, the counts, the output mode. */
struct doc_ctx {
	int json;
	int first;			/* no check printed yet (JSON commas) */
	uint64_t want;			/* --want: bytes about to be requested */
	const char *module_dir;		/* --module-dir: where the .ko files are */
	struct utsname uts;
	int kmajor, kminor;
	int count[4];			/* per enum doc_status */
	int lockdown;			/* 1: integrity or confidentiality */
	char **bufs;			/* /sys/class/u-dma-buf */
	char **regs;			/* /sys/class/uiomem */
};

/* One check's result: CHECK is the family, SUBJECT what it looked at. */
static void CLI_PRINTF(6, 7)
doc_report(struct doc_ctx *c, const char *check, const char *subject,
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

/* The first line of PATH without its newline; -errno. */
static int doc_read_line(const char *path, char *buf, size_t len)
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

static int doc_read_u64(const char *path, uint64_t *val)
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
static const char doc_fix_udev[] =
	"udev rule SUBSYSTEM==\"u-dma-buf\", GROUP=\"udmem\", MODE=\"0660\"; user in group udmem";
static const char doc_fix_x86[] =
	"x86 DMA snoops the caches: check the device's bus; syncs only cost time here";
static const char doc_fix_dt_coh[] =
	"the bus decides: look for a parent's dma-noncoherent, and the kernel's support for it";
static const char doc_fix_snoop[] =
	"keep it only if the master's port snoops (ZynqMP HPC with CCI); on an HP port drop it";
static const char doc_fix_iommu[] =
	"program the device with dma_addr (device_address in Python), never phys_addr";
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

/* Whether a udev rule names our subsystem; its path in RULE. */
static int doc_find_udev_rule(char *rule, size_t len)
{
	static const char *const dirs[] = {
		"/etc/udev/rules.d", "/run/udev/rules.d", "/lib/udev/rules.d",
		"/usr/lib/udev/rules.d",
	};
	char path[PATH_MAX], line[DOC_TEXT_MAX];
	struct dirent *e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		DIR *d = opendir(dirs[i]);

		if (!d)
			continue;
		while ((e = readdir(d))) {
			FILE *f;
			int hit = 0;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;
			while (!hit && fgets(line, sizeof(line), f))
				hit = line[0] != '#' && strstr(line, "u-dma-buf");
			fclose(f);
			if (hit) {
				snprintf(rule, len, "%s", path);
				closedir(d);
				return 1;
			}
		}
		closedir(d);
	}
	return 0;
}

static void doc_check_node(struct doc_ctx *c, const char *name, int have_rule,
			   const char *rule)
{
	char path[PATH_MAX], fix[DOC_TEXT_MAX * 2], grname[32];
	struct group *gr;
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", name);
	if (stat(path, &st)) {
		doc_report(c, "permission", path, DOC_FAIL,
			   "mount devtmpfs on /dev (or let udev/mdev create the node)",
			   "the device exists in sysfs but %s does not (%s)", path,
			   strerror(errno));
		return;
	}
	gr = getgrgid(st.st_gid);
	if (gr)
		snprintf(grname, sizeof(grname), "%s", gr->gr_name);
	else
		snprintf(grname, sizeof(grname), "%u", (unsigned int)st.st_gid);
	if (!access(path, R_OK | W_OK)) {
		doc_report(c, "permission", path, DOC_OK, NULL,
			   "this user (uid %u) can open it read-write (mode %04o, group %s)",
			   (unsigned int)getuid(), (unsigned int)(st.st_mode & 07777), grname);
		return;
	}
	if (have_rule && st.st_gid != 0)
		snprintf(fix, sizeof(fix),
			 "add the user to group %s (usermod -aG %s USER) and log in again; "
			 "the rule is %s", grname, grname, rule);
	else
		snprintf(fix, sizeof(fix), "%s", doc_fix_udev);
	doc_report(c, "permission", path, DOC_FAIL, fix,
		   "uid %u cannot open it read-write: mode %04o, owner %u, group %s%s",
		   (unsigned int)getuid(), (unsigned int)(st.st_mode & 07777),
		   (unsigned int)st.st_uid, grname,
		   have_rule ? "" : "; no udev rule names u-dma-buf");
}

static void doc_check_permissions(struct doc_ctx *c)
{
	char rule[PATH_MAX] = "";
	int have_rule = doc_find_udev_rule(rule, sizeof(rule));
	int i, k, any = 0;

	if (!access("/sys/class/misc/u-dma-buf-mgr", F_OK) ||
	    !access("/sys/module/u_dma_buf_mgr", F_OK)) {
		doc_check_node(c, "u-dma-buf-mgr", have_rule, rule);
		any = 1;
	}
	for (k = 0; k < 2; k++) {
		char **names = k ? c->regs : c->bufs;

		for (i = 0; names && names[i]; i++, any = 1)
			doc_check_node(c, names[i], have_rule, rule);
	}
	if (!any)
		doc_report(c, "permission", "/dev", DOC_SKIP, NULL,
			   "no buffer, region or manager to check");
}

/* Whether the device-tree node behind LINK (a sysfs of_node) has PROP. */
static int doc_of_has(const char *node, const char *prop)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", node, prop);
	return !access(path, F_OK);
}

static int doc_arch_coherent(const char *machine)
{
	return !strcmp(machine, "x86_64") || (machine[0] == 'i' && strstr(machine, "86"));
}

static void doc_check_coherence(struct doc_ctx *c, const char *name)
{
	char base[256], path[PATH_MAX], node[512];
	uint64_t coh;
	int dt_coh = -1;	/* -1: no device-tree node */

	snprintf(base, sizeof(base), "/sys/class/u-dma-buf/%s", name);
	snprintf(path, sizeof(path), "%s/dma_coherent", base);
	if (doc_read_u64(path, &coh)) {
		doc_report(c, "coherence", name, DOC_SKIP, NULL,
			   "no dma_coherent attribute (driver older than udmem)");
		return;
	}
	snprintf(node, sizeof(node), "%s/device/of_node", base);
	if (!access(node, F_OK))
		dt_coh = doc_of_has(node, "dma-coherent") ? 1 :
			 doc_of_has(node, "dma-noncoherent") ? 0 : 2;
	if (doc_arch_coherent(c->uts.machine)) {
		doc_report(c, "coherence", name, coh ? DOC_OK : DOC_WARN,
			   coh ? NULL : doc_fix_x86,
			   "%s on %s, where PCIe and platform DMA snoop the CPU caches",
			   coh ? "coherent" : "non-coherent", c->uts.machine);
		return;
	}
	if (dt_coh == 1 && !coh) {
		doc_report(c, "coherence", name, DOC_WARN, doc_fix_dt_coh,
			   "the device tree node says dma-coherent but the buffer is non-coherent");
	} else if (coh && dt_coh != 1) {
		doc_report(c, "coherence", name, DOC_WARN, doc_fix_snoop,
			   "coherent without a dma-coherent device-tree property: no cache upkeep");
	} else if (coh) {
		doc_report(c, "coherence", name, DOC_OK,
			   NULL, "coherent, as its device-tree node says: the master must snoop");
	} else {
		doc_report(c, "coherence", name, DOC_OK, NULL,
			   "non-coherent%s: every sync cleans or invalidates the caches",
			   dt_coh < 0 ? " (no device-tree node)" : ", as its node says");
	}
}

static void doc_check_iommu(struct doc_ctx *c, const char *name, int present)
{
	char path[PATH_MAX], link[256], type[32] = "?";
	struct udmem_buffer *buf = NULL;
	uint64_t phys = 0, dma = 0;
	const char *grp;
	ssize_t n;
	int ret;

	ret = udmem_buffer_open(name, UDMEM_OPEN_RDONLY, &buf);
	if (ret == 0) {
		phys = udmem_buffer_phys_addr(buf);
		dma = udmem_buffer_dma_addr(buf);
		udmem_buffer_close(buf);
	}
	snprintf(path, sizeof(path), "/sys/class/u-dma-buf/%s/device/iommu_group", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		if (ret)
			doc_report(c, "iommu", name, DOC_SKIP, NULL,
				   "not behind an IOMMU%s; dma_addr not read (%s)",
				   present ? " (the system has one)" : "", udmem_strerror(-ret));
		else
			doc_report(c, "iommu", name, DOC_OK, NULL,
				   "not behind an IOMMU%s: dma_addr 0x%" PRIx64 "%s",
				   present ? " (the system has one)" : "", dma,
				   dma == phys ? " = phys_addr" : ", not phys_addr (dma-ranges)");
		return;
	}
	link[n] = '\0';
	grp = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", grp);
	doc_read_line(path, type, sizeof(type));
	if (ret) {
		doc_report(c, "iommu", name, DOC_WARN,
			   "run doctor as a user who can open it to see dma_addr",
			   "behind IOMMU group %s (%s); dma_addr not read (%s)", grp, type,
			   udmem_strerror(-ret));
		return;
	}
	doc_report(c, "iommu", name, DOC_OK, doc_fix_iommu,
		   "behind IOMMU group %s (%s): dma_addr 0x%" PRIx64 ", phys_addr 0x%" PRIx64,
		   grp, type, dma, phys);
}

static void doc_check_buffers(struct doc_ctx *c)
{
	DIR *d = opendir("/sys/class/iommu");
	struct dirent *e;
	int i, present = 0;

	while (d && (e = readdir(d)))
		present |= e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (!c->bufs || !c->bufs[0]) {
		doc_report(c, "coherence", "buffers", DOC_SKIP, NULL, "no u-dma-buf buffer");
		doc_report(c, "iommu", "system", DOC_OK, NULL, "%s",
			   present ? "an IOMMU is present: devices behind it see IOVAs (dma_addr)" :
				     "no IOMMU: devices see dma_addr (= phys_addr unless dma-ranges)");
		return;
	}
	for (i = 0; c->bufs[i]; i++) {
		doc_check_coherence(c, c->bufs[i]);
		doc_check_iommu(c, c->bufs[i], present);
	}
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

static void doc_check_memtype(struct doc_ctx *c)
{
	char path[PATH_MAX];
	const char *m, *s;
	int i, k, any = 0;

	if (access("/dev/udmem-memtype", R_OK | W_OK)) {
		doc_report(c, "memtype", "mappings", DOC_SKIP, NULL,
			   "not checked: the page-table reader (test module udmem-memtype) is absent");
		return;
	}
	for (k = 0; k < 2; k++) {
		char **names = k ? c->regs : c->bufs;

		for (i = 0; names && names[i]; i++, any = 1) {
			snprintf(path, sizeof(path), "/dev/%s", names[i]);
			m = bench_memtype_of(path, false);
			s = bench_memtype_of(path, true);
			if (!m && !s)
				doc_report(c, "memtype", names[i], DOC_SKIP, NULL,
					   "not checked: %s", strerror(errno));
			else
				doc_report(c, "memtype", names[i], DOC_OK, NULL,
					   "mmap %s, O_SYNC mmap %s (page tables)",
					   m ? m : "-", s ? s : "-");
		}
	}
	if (!any)
		doc_report(c, "memtype", "mappings", DOC_SKIP, NULL,
			   "not checked: no buffer or region");
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
