/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * sc-common.h: what the sync checker's tests of u-dma-buf (syncchk.c) and
 * of uiomem (uiochk.c) share: the checker's last kernel message of an
 * object and the SIGBUS catching of strict mode.  Include after harness.h.
 */
#ifndef SC_COMMON_H
#define SC_COMMON_H

#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

/* The last checker line of an object in the kernel log, or "" */
static void sc_last_msg(const char *name, char *out, size_t len)
{
	char key[128], *log, *p, *hit = NULL, *end;
	int n, size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */

	out[0] = 0;
	if (size <= 0)
		size = 1 << 20;
	log = malloc(size + 1);
	if (!log)
		return;
	n = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	if (n < 0)
		n = 0;
	log[n] = 0;
	snprintf(key, sizeof(key), "%s: sync check: ", name);
	for (p = strstr(log, key); p; p = strstr(p + 1, key))
		hit = p;
	if (hit) {
		end = strchr(hit, '\n');
		if (end)
			*end = 0;
		snprintf(out, len, "%s", hit);
	}
	free(log);
}

/* The value after "offset=" in the last checker line, or -1 */
static long long sc_msg_offset(const char *name, const char *what)
{
	char msg[1024], *p;

	sc_last_msg(name, msg, sizeof(msg));
	if (!*msg) {
		TH_LOG("no sync check line for %s in the kernel log", name);
		return -1;
	}
	TH_LOG("%s", msg);
	if (what && !strstr(msg, what)) {
		TH_LOG("expected \"%s\" in it", what);
		return -1;
	}
	p = strstr(msg, " offset=");
	return p ? strtoll(p + 8, NULL, 0) : -1;
}

/* SIGBUS catching for strict mode: the address, or NULL without one. */
static sigjmp_buf sc_jmp;
static volatile void *sc_bus_addr;

static void sc_on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sc_bus_addr = si->si_addr;
	siglongjmp(sc_jmp, 1);
}

static void sc_catch_bus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sc_on_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sc_bus_addr = NULL;
}

/* One access through the mapping; 1 if it took SIGBUS (the address noted). */
static int sc_touch(volatile uint8_t *p, int write)
{
	sc_bus_addr = NULL;
	if (sigsetjmp(sc_jmp, 1))
		return 1;
	if (write)
		*p = 0x5a;
	else
		(void)*p;
	return 0;
}

#endif /* SC_COMMON_H */
