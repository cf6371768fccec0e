// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * example-edu.c - the complete libudmem example of docs/library.md.
 *
 * Write a pattern into a u-dma-buf buffer, hand it to a device, take it
 * back, verify.  The device is QEMU's "edu" PCI device, driven from user
 * space through its BAR: it copies the first page of the buffer into its
 * own memory by DMA, then copies that back into the second page.
 *
 *   example-edu BUFFER PCI-DEVICE     e.g. example-edu udmabuf0 0000:00:03.0
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <udmem.h>

#define EDU_DMA_SRC	0x80	/* registers of the edu device */
#define EDU_DMA_DST	0x88
#define EDU_DMA_COUNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_START	0x1
#define EDU_CMD_TO_RAM	0x2
#define EDU_MEM		0x40000	/* the device's own memory, as it addresses it */
#define PAGE		4096
#define LEN		2048	/* QEMU 7.2's edu refuses a transfer of all 4 KiB */

static void edu_write(volatile uint8_t *bar, unsigned int reg, uint32_t val)
{
	*(volatile uint32_t *)(bar + reg) = val;
}

/* One DMA transfer; the edu device runs it 100 ms (virtual time) later. */
static int edu_dma(volatile uint8_t *bar, uint64_t src, uint64_t dst,
		   uint32_t len, uint32_t cmd)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int i;

	edu_write(bar, EDU_DMA_SRC, (uint32_t)src);
	edu_write(bar, EDU_DMA_DST, (uint32_t)dst);
	edu_write(bar, EDU_DMA_COUNT, len);
	edu_write(bar, EDU_DMA_CMD, cmd | EDU_CMD_START);
	for (i = 0; i < 500; i++) {
		if (!(*(volatile uint32_t *)(bar + EDU_DMA_CMD) & EDU_CMD_START))
			return 0;
		nanosleep(&pause, NULL);
	}
	return -ETIMEDOUT;
}

/* Map the edu registers and let the device master the bus. */
static volatile uint8_t *edu_open(const char *pci)
{
	char path[128];
	uint16_t command;
	void *bar;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", pci);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &command, 2, 4) != 2)
		return NULL;
	command |= 0x6;			/* memory space + bus master */
	if (pwrite(fd, &command, 2, 4) != 2)
		return NULL;
	close(fd);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", pci);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	bar = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return bar == MAP_FAILED ? NULL : bar;
}

int main(int argc, char **argv)
{
	struct udmem_buffer *buf;
	volatile uint8_t *bar;
	uint8_t *mem;
	uint64_t dma;
	void *addr;
	int ret, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BUFFER PCI-DEVICE\n", argv[0]);
		return 2;
	}
	bar = edu_open(argv[2]);
	if (!bar) {
		perror(argv[2]);
		return 1;
	}
	ret = udmem_buffer_open(argv[1], 0, &buf);	/* we must close buf */
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], udmem_strerror(ret));
		return 1;
	}
	ret = udmem_buffer_map(buf, &addr);		/* buf owns the mapping */
	if (ret)
		goto out;
	mem = addr;
	dma = udmem_buffer_dma_addr(buf);
	printf("%s: %" PRIu64 " bytes, DMA address 0x%" PRIx64 ", %scoherent\n",
	       udmem_buffer_name(buf), udmem_buffer_size(buf), dma,
	       udmem_buffer_is_coherent(buf) ? "" : "not ");

	/* 1. The CPU writes a pattern into page 0 and clears page 1. */
	for (i = 0; i < LEN; i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	memset(mem + PAGE, 0, PAGE);
	/* 2. Hand both pages to the device: write back the CPU caches. */
	ret = udmem_buffer_sync_for_device(buf, 0, 2 * PAGE, UDMEM_DIR_BIDIRECTIONAL);
	if (ret)
		goto out;
	/* 3. The device copies page 0 into its memory, then into page 1. */
	ret = edu_dma(bar, dma, EDU_MEM, LEN, 0);
	if (!ret)
		ret = edu_dma(bar, EDU_MEM, dma + PAGE, LEN, EDU_CMD_TO_RAM);
	if (ret)
		goto out;
	/* 4. Take page 1 back: invalidate what the CPU may have cached. */
	ret = udmem_buffer_sync_for_cpu(buf, PAGE, LEN, UDMEM_DIR_FROM_DEVICE);
	if (ret)
		goto out;
	/* 5. Verify. */
	for (i = 0; i < LEN; i++) {
		if (mem[PAGE + i] != (uint8_t)(i * 7 + 1)) {
			printf("mismatch at byte %d: 0x%02x\n", i, mem[PAGE + i]);
			ret = -EIO;
			goto out;
		}
	}
	printf("the device copied %d bytes there and back: verified\n", LEN);
out:
	if (ret)
		fprintf(stderr, "%s: %s\n", argv[1], udmem_strerror(ret));
	udmem_buffer_close(buf);			/* unmaps too */
	return ret ? 1 : 0;
}
