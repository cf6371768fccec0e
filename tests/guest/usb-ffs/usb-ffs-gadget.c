// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * usb-ffs-gadget.c - the gadget side (FunctionFS descriptors and strings on
 * ep0, binding to the UDC through configfs) and the host side (the device
 * dummy_hcd's root hub enumerated, opened through usbfs) of the usb-ffs
 * program.
 */
#include <endian.h>

#include "usb-ffs.h"

/* One interface, vendor class, one bulk IN endpoint; full and high speed. */
struct ffs_speed_descs {
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor_no_audio in;
} __attribute__((packed));

struct ffs_descs {
	struct usb_functionfs_descs_head_v2 head;
	__le32 fs_count;
	__le32 hs_count;
	struct ffs_speed_descs fs, hs;
} __attribute__((packed));

#define FFS_IFACE_NAME	"udmem stream"

struct ffs_strings {
	struct usb_functionfs_strings_head head;
	__le16 lang;
	char str[sizeof(FFS_IFACE_NAME)];
} __attribute__((packed));

static void ffs_speed_fill(struct ffs_speed_descs *d, uint16_t maxpacket)
{
	d->intf.bLength = sizeof(d->intf);
	d->intf.bDescriptorType = USB_DT_INTERFACE;
	d->intf.bNumEndpoints = 1;
	d->intf.bInterfaceClass = USB_CLASS_VENDOR_SPEC;
	d->intf.iInterface = 1;
	d->in.bLength = sizeof(d->in);
	d->in.bDescriptorType = USB_DT_ENDPOINT;
	d->in.bEndpointAddress = 1 | USB_DIR_IN;
	d->in.bmAttributes = USB_ENDPOINT_XFER_BULK;
	d->in.wMaxPacketSize = htole16(maxpacket);
}

static void ffs_write_ep0(int ep0)
{
	struct ffs_descs d;
	struct ffs_strings s;

	memset(&d, 0, sizeof(d));
	d.head.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	d.head.length = htole32(sizeof(d));
	d.head.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC);
	d.fs_count = htole32(2);
	d.hs_count = htole32(2);
	ffs_speed_fill(&d.fs, 64);
	ffs_speed_fill(&d.hs, 512);
	ASSERT_EQ(write(ep0, &d, sizeof(d)), (ssize_t)sizeof(d));

	memset(&s, 0, sizeof(s));
	s.head.magic = htole32(FUNCTIONFS_STRINGS_MAGIC);
	s.head.length = htole32(sizeof(s));
	s.head.str_count = htole32(1);
	s.head.lang_count = htole32(1);
	s.lang = htole16(0x0409);
	memcpy(s.str, FFS_IFACE_NAME, sizeof(FFS_IFACE_NAME));
	ASSERT_EQ(write(ep0, &s, sizeof(s)), (ssize_t)sizeof(s));
}

static int ffs_write_attr(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = -errno;
	close(fd);
	return err;
}

static int ffs_read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/*
 * The host's device with our ids: its sysfs folder in dir; 1 when found.
 * Only device folders (no ':' in the name) have idVendor.
 */
static int ffs_host_find(char *dir, size_t len)
{
	const char *vid = ut_env("FFS_VID", "1209"), *pid = ut_env("FFS_PID", "7564");
	char path[512], v[16], p[16];
	struct dirent *e;
	DIR *d = opendir("/sys/bus/usb/devices");
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strchr(e->d_name, ':'))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s", e->d_name);
		if (ffs_read_attr(path, "idVendor", v, sizeof(v)) ||
		    ffs_read_attr(path, "idProduct", p, sizeof(p)))
			continue;
		if (!strcmp(v, vid) && !strcmp(p, pid)) {
			snprintf(dir, len, "%s", path);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* The first IN endpoint (ep_8x) of interface 0 of the device at dir. */
static unsigned int ffs_host_in_ep(const char *dir)
{
	char path[1100];
	struct dirent *e;
	unsigned int ep = 0;
	const char *base = strrchr(dir, '/') + 1;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s:1.0", dir, base);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "ep_", 3) && strtoul(e->d_name + 3, NULL, 16) & USB_DIR_IN)
			ep = strtoul(e->d_name + 3, NULL, 16);
	closedir(d);
	return ep;
}

static void ffs_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int ffs_bind(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/UDC", ut_env("FFS_GADGET", ""));
	return ffs_write_attr(path, ut_env("FFS_UDC", "dummy_udc.0"));
}

/* Unbind the gadget from its UDC; 0 or -errno. */
int ffs_unbind(struct ffs_gadget *g)
{
	char path[512];
	int err;

	if (!g->bound)
		return 0;
	snprintf(path, sizeof(path), "%s/UDC", ut_env("FFS_GADGET", ""));
	err = ffs_write_attr(path, "\n");
	if (!err)
		g->bound = 0;
	return err;
}

/*
 * Open the gadget (descriptors and strings on ep0, ep1 open), bind it and
 * wait until the host side has enumerated it; claim interface 0 through
 * usbfs.  Enumeration takes the hub's debounce and resets: the waits are
 * bounded by counts of 20 ms naps, generous for a slow guest.
 */
void ffs_gadget_open(struct ffs_gadget *g)
{
	const char *dir = ut_env("FFS_DIR", "/dev/ffs-udmem");
	char path[512], sdir[512], num[16];
	int i, bus, dev, claim = 0;

	memset(g, 0, sizeof(*g));
	g->ep0 = -1;
	g->ep1 = -1;
	g->usb = -1;
	snprintf(path, sizeof(path), "%s/ep0", dir);
	g->ep0 = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_TRUE(g->ep0 >= 0);
	ffs_write_ep0(g->ep0);
	snprintf(path, sizeof(path), "%s/ep1", dir);
	g->ep1 = open(path, O_RDWR | O_CLOEXEC);
	UT_CHECK(g->ep1 >= 0, 1, "open %s: %s", path, strerror(errno));
	if (!strcmp(ut_env("FFS_HOST", "usbfs"), "tudc")) {
		/* udmem-test-udc: its char device is the host; binding configures */
		snprintf(g->host_dev, sizeof(g->host_dev), "/dev/udmem-test-udc");
		g->usb = open(g->host_dev, O_RDONLY | O_CLOEXEC);
		UT_CHECK(g->usb >= 0, 1, "open %s: %s", g->host_dev, strerror(errno));
		g->tudc = 1;
		i = ffs_bind();
		UT_CHECK(i == 0, 1, "bind to %s: %s", ut_env("FFS_UDC", ""), strerror(-i));
		g->bound = 1;
		return;
	}
	/* The previous test's device must be gone before this one binds. */
	for (i = 0; i < 3000 && ffs_host_find(sdir, sizeof(sdir)); i++)
		ffs_sleep_ms(20);
	i = ffs_bind();
	UT_CHECK(i == 0, 1, "bind to %s: %s", ut_env("FFS_UDC", ""), strerror(-i));
	g->bound = 1;
	for (i = 0; i < 3000 && !ffs_host_find(sdir, sizeof(sdir)); i++)
		ffs_sleep_ms(20);
	UT_CHECK(i < 3000, 1, "the host saw no device %s:%s after binding",
		 ut_env("FFS_VID", ""), ut_env("FFS_PID", ""));
	for (i = 0; i < 3000 && !(g->host_ep = ffs_host_in_ep(sdir)); i++)
		ffs_sleep_ms(20);
	UT_CHECK(g->host_ep, 1, "%s has no configured interface with an IN endpoint", sdir);
	ASSERT_EQ(ffs_read_attr(sdir, "busnum", num, sizeof(num)), 0);
	bus = atoi(num);
	ASSERT_EQ(ffs_read_attr(sdir, "devnum", num, sizeof(num)), 0);
	dev = atoi(num);
	snprintf(g->host_dev, sizeof(g->host_dev), "/dev/bus/usb/%03d/%03d", bus, dev);
	for (i = 0; i < 3000 && (g->usb = open(g->host_dev, O_RDWR | O_CLOEXEC)) < 0; i++)
		ffs_sleep_ms(20);
	UT_CHECK(g->usb >= 0, 1, "open %s: %s", g->host_dev, strerror(errno));
	UT_CHECK(ioctl(g->usb, USBDEVFS_CLAIMINTERFACE, &claim) == 0, 1,
		 "USBDEVFS_CLAIMINTERFACE 0 on %s: %s", g->host_dev, strerror(errno));
}

void ffs_gadget_close(struct ffs_gadget *g)
{
	int claim = 0;

	if (g->usb >= 0) {
		if (!g->tudc)
			ioctl(g->usb, USBDEVFS_RELEASEINTERFACE, &claim);
		close(g->usb);
	}
	EXPECT_EQ(ffs_unbind(g), 0);
	if (g->ep1 >= 0)
		close(g->ep1);
	if (g->ep0 >= 0)
		close(g->ep0);
	g->usb = -1;
	g->ep1 = -1;
	g->ep0 = -1;
}

/*
 * Read len bytes from the IN endpoint through usbfs, in URBs of FFS_CHUNK;
 * the bytes read (short at a short packet), or -errno of the first failed
 * URB.
 */
ssize_t ffs_host_read(struct ffs_gadget *g, uint8_t *buf, size_t len, unsigned int ms)
{
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < FFS_CHUNK ? len - done : FFS_CHUNK;
		struct usbdevfs_bulktransfer b = {
			.ep = g->host_ep, .len = n, .timeout = ms, .data = buf + done,
		};
		int r = g->tudc ? (int)read(g->usb, buf + done, n) : ioctl(g->usb, USBDEVFS_BULK, &b);

		if (r < 0)
			return done ? (ssize_t)done : -errno;
		done += r;
		ut_progress();
		/* a short packet ends a USB transfer; the test UDC returns a request at most */
		if ((size_t)r < n && !g->tudc)
			break;
	}
	return done;
}

/*
 * A child that writes len bytes of pattern seed to ep through write(), in
 * FFS_CHUNK pieces.  It exits 0 when all went out, else with the errno of
 * the failed write() (EIO for a short one).
 */
pid_t ffs_writer(int ep, size_t len, uint32_t seed)
{
	pid_t pid = fork();
	static uint8_t chunk[FFS_CHUNK];

	ASSERT_TRUE(pid >= 0);
	if (pid)
		return pid;
	for (size_t off = 0; off < len; off += FFS_CHUNK) {
		size_t n = len - off < FFS_CHUNK ? len - off : FFS_CHUNK;
		ssize_t w;

		for (size_t i = 0; i < n; i++)
			chunk[i] = ffs_pattern(seed, off + i);
		w = write(ep, chunk, n);
		if (w < 0)
			_exit(errno);
		if ((size_t)w != n)
			_exit(EIO);
	}
	_exit(0);
}

/* The writer's exit code (0, an errno), or -1 when a signal ended it. */
int ffs_writer_wait(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
