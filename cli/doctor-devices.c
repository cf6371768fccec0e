// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * doctor-devices.c - the checks of `udmem doctor` that look at each device:
 * who may open its node, its coherence against the device tree and the
 * SoC, the IOMMU and its addresses, and the memory type of its mappings.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "doctor.h"

/* The fixes, one line each. */
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

void doc_check_permissions(struct doc_ctx *c)
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

/*
 * What the device tree says of a node's coherence, as the kernel reads it:
 * the node's own dma-coherent or dma-noncoherent, else its nearest parent's.
 * 1 coherent, 0 non-coherent, 2 neither; WHERE gets the node that says so.
 */
static int doc_of_coherent(const char *of_node, char *where, size_t len)
{
	char node[PATH_MAX], path[PATH_MAX + 20], *slash;
	size_t root = strlen("/sys/firmware/devicetree/base");

	if (!realpath(of_node, node))
		return 2;
	while (strlen(node) > root) {
		snprintf(path, sizeof(path), "%s/dma-coherent", node);
		if (!access(path, F_OK)) {
			snprintf(where, len, "%s", node + root);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/dma-noncoherent", node);
		if (!access(path, F_OK)) {
			snprintf(where, len, "%s", node + root);
			return 0;
		}
		slash = strrchr(node, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return 2;
}

static int doc_arch_coherent(const char *machine)
{
	return !strcmp(machine, "x86_64") || (machine[0] == 'i' && strstr(machine, "86"));
}

static void doc_check_coherence(struct doc_ctx *c, const char *name)
{
	char base[256], path[PATH_MAX], node[512], where[PATH_MAX] = "";
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
		dt_coh = doc_of_coherent(node, where, sizeof(where));
	if (doc_arch_coherent(c->uts.machine)) {
		doc_report(c, "coherence", name, coh ? DOC_OK : DOC_WARN,
			   coh ? NULL : doc_fix_x86,
			   "%s on %s, where PCIe and platform DMA snoop the CPU caches",
			   coh ? "coherent" : "non-coherent", c->uts.machine);
		return;
	}
	if (dt_coh == 1 && !coh) {
		doc_report(c, "coherence", name, DOC_WARN, doc_fix_dt_coh,
			   "the device tree (%s) says dma-coherent but the buffer is non-coherent",
			   where);
	} else if (coh && dt_coh != 1) {
		doc_report(c, "coherence", name, DOC_WARN, doc_fix_snoop,
			   "coherent without a dma-coherent device-tree property: no cache upkeep");
	} else if (coh) {
		doc_report(c, "coherence", name, DOC_OK, NULL,
			   "coherent, as the device tree says (%s): the master must snoop", where);
	} else {
		doc_report(c, "coherence", name, DOC_OK, NULL,
			   "non-coherent%s%s%s: every sync cleans or invalidates the caches",
			   dt_coh < 0 ? " (no device-tree node)" :
			   dt_coh == 0 ? ", as the device tree says (" : " (the SoC's default",
			   where, dt_coh < 0 ? "" : ")");
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

void doc_check_buffers(struct doc_ctx *c)
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

void doc_check_memtype(struct doc_ctx *c)
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
