// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sysinfo.c - what the figures were measured on: kernel, architecture,
 * machine, CPU, and whether the machine is emulated (QEMU), with the
 * evidence, because absolute throughput means nothing under TCG.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench-priv.h"

/* Read a small file; NULs (device-tree string lists) become spaces. */
static int bench_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	return n ? 0 : -1;
}

/* The value of the first "key : value" line of /proc/cpuinfo with key. */
static int bench_cpuinfo(const char *key, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		size_t klen = strlen(key);

		if (!colon || strncmp(line, key, klen) ||
		    (line[klen] != ' ' && line[klen] != '\t' &&
		     line[klen] != ':'))
			continue;
		colon++;
		while (isspace((unsigned char)*colon))
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, len, "%s", colon);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static bool bench_contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static void bench_detect_emulation(struct bench_sysinfo *si)
{
	char buf[256], clk[256] = "";
	const char *env = getenv("UDMEM_BENCH_EMULATED");

	bench_read_small("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			 clk, sizeof(clk));
	if (env && *env) {
		si->emulated = strcmp(env, "0") != 0;
		snprintf(si->emulation, sizeof(si->emulation),
			 "UDMEM_BENCH_EMULATED=%s", env);
	} else if (!bench_read_small("/sys/firmware/devicetree/base/compatible",
				     buf, sizeof(buf)) &&
		   (bench_contains(buf, "linux,dummy-virt") ||
		    bench_contains(buf, "riscv-virtio") ||
		    bench_contains(buf, "qemu"))) {
		/* QEMU's virt boards; with KVM they also carry these names. */
		si->emulated = !bench_contains(clk, "kvm");
		snprintf(si->emulation, sizeof(si->emulation),
			 "qemu: devicetree compatible \"%.100s\"", buf);
	} else if (!bench_read_small("/sys/class/dmi/id/sys_vendor", buf,
				     sizeof(buf)) &&
		   bench_contains(buf, "QEMU")) {
		/* kvm-clock is offered only when KVM runs the guest. */
		si->emulated = !bench_contains(clk, "kvm-clock");
		snprintf(si->emulation, sizeof(si->emulation),
			 "qemu: DMI sys_vendor \"%.60s\"%s", buf,
			 si->emulated ? ", no kvm-clock (TCG)" :
			 ", kvm-clock (KVM: not emulated)");
	} else if (!bench_cpuinfo("model name", buf, sizeof(buf)) &&
		   bench_contains(buf, "QEMU")) {
		si->emulated = true;
		snprintf(si->emulation, sizeof(si->emulation),
			 "qemu: cpu model \"%.100s\"", buf);
	} else {
		si->emulated = false;
		snprintf(si->emulation, sizeof(si->emulation),
			 "none found (devicetree, DMI, cpuinfo)");
	}
}

void bench_sysinfo_get(struct bench_sysinfo *si)
{
	struct utsname u;
	char buf[128];
	const char *src;
	time_t now = time(NULL);
	struct tm tm;

	memset(si, 0, sizeof(*si));
	if (!uname(&u)) {
		snprintf(si->kernel, sizeof(si->kernel), "%s", u.release);
		snprintf(si->arch, sizeof(si->arch), "%.31s", u.machine);
	}
	if (!bench_read_small("/sys/firmware/devicetree/base/model", buf,
			      sizeof(buf))) {
		snprintf(si->machine, sizeof(si->machine), "%s", buf);
	} else if (!bench_read_small("/sys/class/dmi/id/product_name", buf,
				     sizeof(buf))) {
		char vendor[64] = "";

		bench_read_small("/sys/class/dmi/id/sys_vendor", vendor,
				 sizeof(vendor));
		snprintf(si->machine, sizeof(si->machine), "%.60s%s%.60s", vendor,
			 *vendor ? " " : "", buf);
	} else {
		snprintf(si->machine, sizeof(si->machine), "unknown");
	}
	if (bench_cpuinfo("model name", si->cpu, sizeof(si->cpu)) &&
	    bench_cpuinfo("uarch", si->cpu, sizeof(si->cpu)) &&
	    bench_cpuinfo("isa", si->cpu, sizeof(si->cpu))) {
		char part[32] = "", impl[32] = "";

		bench_cpuinfo("CPU implementer", impl, sizeof(impl));
		bench_cpuinfo("CPU part", part, sizeof(part));
		if (*part)
			snprintf(si->cpu, sizeof(si->cpu),
				 "implementer %s part %s", impl, part);
		else
			snprintf(si->cpu, sizeof(si->cpu), "unknown");
	}
	bench_detect_emulation(si);
	si->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	si->page_size = sysconf(_SC_PAGESIZE);
	si->cache_line = bench_cache_line(&src);
	gmtime_r(&now, &tm);
	strftime(si->time, sizeof(si->time), "%Y-%m-%dT%H:%M:%SZ", &tm);
}
