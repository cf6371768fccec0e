// SPDX-License-Identifier: GPL-2.0
/*
 * edu-unbind - the provider's device is unbound (EDU_PCI, e.g.
 * 0000:00:10.0) while the client runs a cyclic transfer on its channel:
 * the transfer ends with DMA_TRANS_ABORTED (-ECANCELED), the channels the
 * client still holds refuse new work, and nothing oopses.  It leaves the
 * device unbound; suite.sh goes on from there.  See edu-dma.h.
 */
#define _FILE_OFFSET_BITS 64
#include <sys/wait.h>

#include "edu-dma.h"

#define EU_UNBIND	"/sys/bus/pci/drivers/udmem-edu-dma/unbind"

/* The child: wait for the stream to move, then unbind; exit status 0 if done. */
static int eu_unbind_when_streaming(uint32_t from)
{
	const char *pci = ut_env("EDU_PCI", "0000:00:10.0");
	char p[256], s[32];
	int i, fd, ok;
	FILE *f;

	ed_dbg_path(p, sizeof(p), "rx_next");
	/* 100 ms of virtual time a transfer: 2000 looks, ample under TCG */
	for (i = 0; i < 2000; i++) {
		f = fopen(p, "r");
		if (!f)
			return 1;
		ok = fgets(s, sizeof(s), f) && strtoull(s, NULL, 0) - from >= 2 * 512;
		fclose(f);
		if (ok)
			break;
		usleep(10000);
	}
	fd = open(EU_UNBIND, O_WRONLY);
	if (fd < 0)
		return 2;
	ok = write(fd, pci, strlen(pci)) == (ssize_t)strlen(pci);
	close(fd);
	return ok ? 0 : 3;
}

TEST(unbind_during_cyclic_transfer_aborts_it)
{
	struct udmem_dmaengine_copy c;
	struct udmem_dmaengine_xfer x = { .len = 8192, .kind = UDMEM_DMAENGINE_DEV_TO_MEM,
					  .flags = UDMEM_DMAENGINE_CYCLIC, .seg = 2048,
					  .periods = 200 };
	struct ed_buf b;
	uint32_t from;
	int status, fd;
	pid_t pid;

	ed_open(&b, "EDU_BUF0", "udmabuf0", 0);
	from = ed_dbg_get("rx_next");
	x.addr = b.dma;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(eu_unbind_when_streaming(from));
	EXPECT_EQ(ed_xfer(&x), -ECANCELED);
	EXPECT_EQ(x.result, 3);	/* DMA_TRANS_ABORTED */
	TH_LOG("%u period callbacks before the unbind", x.callbacks);
	EXPECT_GE(x.callbacks, 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);

	/* The channels outlive their device in the client's hands, refusing work. */
	x = (struct udmem_dmaengine_xfer){ .addr = b.dma, .len = 4096,
					   .kind = UDMEM_DMAENGINE_DEV_TO_MEM };
	EXPECT_EQ(ed_xfer(&x), -EINVAL);
	c = (struct udmem_dmaengine_copy){ .src = b.dma, .dst = b.dma + 4096, .len = 4096 };
	fd = open(ED_DEV, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, UDMEM_DMAENGINE_COPY, &c), -1);
	EXPECT_EQ(errno, EIO);
	close(fd);
	ed_close(&b);
}

TEST_HARNESS_MAIN
