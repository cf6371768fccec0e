// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * quickstart-uio.c - the engine of docs/quickstart.md's round, the UIO way:
 * the device's registers are mapped into the program, which writes them to
 * start a transfer, and the device's interrupt arrives through /dev/uioN:
 * read() blocks until it fires, and the kernel masks it until the program
 * unmasks it again.
 *
 * The device here is QEMU's "edu" PCI device, bound to uio_pci_generic: its
 * registers come from the BAR's sysfs file, and the program unmasks the
 * interrupt in the PCI command register (uio_pci_generic maps no memory and
 * takes no write).  For IP in an FPGA with uio_pdrv_genirq, pass no PCI
 * device: the registers are then /dev/uioN's first map (the node's "reg")
 * and write() of 1 unmasks.  Only the register offsets below are edu's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quickstart.h"

#define EDU_IRQ_STATUS	0x24	/* edu's registers */
#define EDU_IRQ_ACK	0x64
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_COUNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_START	0x1
#define EDU_CMD_TO_RAM	0x2
#define EDU_CMD_IRQ	0x4
#define EDU_MEM		0x40000	/* edu's own memory, as it addresses it */
#define REGS_SIZE	(1 << 16)	/* edu's BAR is 1 MiB, the IP's reg 64 KiB */
#define PCI_COMMAND	0x04
#define PCI_COMMAND_MEM_MASTER	0x0006	/* memory space, bus master */
#define PCI_COMMAND_INTX_OFF	0x0400

struct uio_engine {
	struct engine ops;		/* first: the struct engine * is this */
	int uio;			/* /dev/uioN: the interrupt */
	int config;			/* the PCI config space, or -1 */
	volatile uint32_t *regs;	/* the registers */
	uint64_t dst;			/* edu copies in two steps, through EDU_MEM */
	uint32_t len;
};

static void reg_write(struct uio_engine *e, unsigned int off, uint32_t val)
{
	e->regs[off / 4] = val;
}

/* Let the interrupt through once more. */
static int uio_unmask(struct uio_engine *e)
{
	uint32_t one = 1;
	uint16_t cmd;

	if (e->config < 0)	/* uio_pdrv_genirq: write 1 */
		return write(e->uio, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
	if (pread(e->config, &cmd, 2, PCI_COMMAND) != 2)
		return -EIO;
	cmd &= ~PCI_COMMAND_INTX_OFF;
	return pwrite(e->config, &cmd, 2, PCI_COMMAND) == 2 ? 0 : -EIO;
}

/* Unmask the interrupt, then start a transfer that raises it when done. */
static int edu_start(struct uio_engine *e, uint64_t src, uint64_t dst, uint32_t len,
		     uint32_t cmd)
{
	int ret = uio_unmask(e);

	if (ret)
		return ret;
	reg_write(e, EDU_DMA_SRC, (uint32_t)src);
	reg_write(e, EDU_DMA_DST, (uint32_t)dst);
	reg_write(e, EDU_DMA_COUNT, len);
	reg_write(e, EDU_DMA_CMD, cmd | EDU_CMD_IRQ | EDU_CMD_START);
	return 0;
}

/* Block until the interrupt (UIO: read), then acknowledge it in the device. */
static int edu_wait(struct uio_engine *e)
{
	struct pollfd p = { .fd = e->uio, .events = POLLIN };
	uint32_t count;

	/* poll() only to notice a device that finished without interrupting */
	while (poll(&p, 1, 10000) == 0) {
		if (!(e->regs[EDU_DMA_CMD / 4] & EDU_CMD_START))
			return -ETIMEDOUT;
	}
	if (read(e->uio, &count, sizeof(count)) != sizeof(count))
		return -errno;
	reg_write(e, EDU_IRQ_ACK, e->regs[EDU_IRQ_STATUS / 4]);
	return 0;
}

static int uio_start(struct engine *ops, uint64_t src, uint64_t dst, uint32_t len)
{
	struct uio_engine *e = (struct uio_engine *)ops;

	e->dst = dst;
	e->len = len;
	return edu_start(e, src, EDU_MEM, len, 0);
}

/* edu copies in two steps: the second starts when the first is done. */
static int uio_wait(struct engine *ops)
{
	struct uio_engine *e = (struct uio_engine *)ops;
	int ret = edu_wait(e);

	if (!ret)
		ret = edu_start(e, EDU_MEM, e->dst, e->len, EDU_CMD_TO_RAM);
	return ret ? ret : edu_wait(e);
}

static void uio_close(struct engine *ops)
{
	struct uio_engine *e = (struct uio_engine *)ops;

	if (e->regs)
		munmap((void *)e->regs, REGS_SIZE);
	if (e->config >= 0)
		close(e->config);
	if (e->uio >= 0)
		close(e->uio);
	free(e);
}

/*
 * The registers: /dev/uioN's first map, or a PCI device's BAR 0, whose bus
 * mastering is switched on here (and its command register kept open).
 */
static void *uio_map_regs(struct uio_engine *e, const char *pci)
{
	char path[128];
	uint16_t cmd;
	void *regs;
	int fd;

	if (!pci)
		return mmap(NULL, REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, e->uio, 0);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", pci);
	e->config = open(path, O_RDWR | O_CLOEXEC);
	if (e->config < 0 || pread(e->config, &cmd, 2, PCI_COMMAND) != 2)
		return MAP_FAILED;
	cmd |= PCI_COMMAND_MEM_MASTER;
	if (pwrite(e->config, &cmd, 2, PCI_COMMAND) != 2)
		return MAP_FAILED;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", pci);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	regs = mmap(NULL, REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return regs;
}

struct engine *uio_engine_open(const char *uio, const char *pci)
{
	struct uio_engine *e = calloc(1, sizeof(*e));
	void *regs;

	if (!e)
		return NULL;
	e->config = -1;
	e->uio = open(uio, O_RDWR | O_CLOEXEC);
	regs = e->uio < 0 ? MAP_FAILED : uio_map_regs(e, pci);
	if (regs == MAP_FAILED) {
		uio_close(&e->ops);
		return NULL;
	}
	e->regs = regs;
	e->ops.start = uio_start;
	e->ops.wait = uio_wait;
	e->ops.close = uio_close;
	return &e->ops;
}
