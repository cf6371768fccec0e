// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sysfs.c - names, sysfs attributes, device nodes and the helpers that
 * buffer.c and region.c share, plus the library-wide functions.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

UDMEM_API const char *udmem_api_version(void)
{
	return "1.0.0";
}

UDMEM_API const char *udmem_strerror(int err)
{
	static const char unknown[] = "Unknown error";
	const char *s;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "Success";
	/* strerrordesc_np() is thread-safe and returns a static string. */
	s = strerrordesc_np(err);
	return s ? s : unknown;
}

UDMEM_API void udmem_list_free(char **names)
{
	char **p;

	if (!names)
		return;
	for (p = names; *p; p++)
		free(*p);
	free(names);
}

/*
 * A device name: 1..63 printable ASCII characters other than '/', ';' and
 * space, not "." or "..".  Device-tree names such as "amba:udmabuf@0x00"
 * pass; paths and manager command separators do not.
 */
int udmem_name_valid(const char *name)
{
	size_t i, len;

	if (!name)
		return 0;
	len = strlen(name);
	if (len == 0 || len >= UDMEM_NAME_MAX)
		return 0;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (c <= ' ' || c > '~' || c == '/' || c == ';')
			return 0;
	}
	return 1;
}

int udmem_sysfs_read(const char *class, const char *name, const char *attr,
		     char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd, ret = 0;

	if (len < 2)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/%s/%s/%s", class, name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		n = 0;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

int udmem_sysfs_read_u64(const char *class, const char *name,
			 const char *attr, uint64_t *val)
{
	char text[64], *end;
	unsigned long long v;
	int ret;

	ret = udmem_sysfs_read(class, name, attr, text, sizeof(text));
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text || *end)
		return -EIO;
	*val = v;
	return 0;
}

int udmem_sysfs_exists(const char *class, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/%s/%s", class, name);
	return stat(path, &st) == 0;
}

/*
 * Open /dev/NAME and make sure it is the device that /sys/class/CLASS/NAME
 * describes, so that a name belonging to another driver is refused.
 */
int udmem_dev_open(const char *class, const char *name, unsigned int flags)
{
	unsigned int maj, min;
	char path[128], text[32];
	struct stat st;
	int fd, oflags, ret;

	if (!udmem_name_valid(name) ||
	    (flags & ~(unsigned int)(UDMEM_OPEN_SYNC | UDMEM_OPEN_RDONLY)))
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/%s", name);
	if (!udmem_sysfs_exists(class, name))
		return stat(path, &st) == 0 ? -ENODEV : -ENOENT;
	ret = udmem_sysfs_read(class, name, "dev", text, sizeof(text));
	if (ret)
		return ret;
	if (sscanf(text, "%u:%u", &maj, &min) != 2)
		return -EIO;

	oflags = O_CLOEXEC;
	oflags |= (flags & UDMEM_OPEN_RDONLY) ? O_RDONLY : O_RDWR;
	if (flags & UDMEM_OPEN_SYNC)
		oflags |= O_SYNC;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto err_close;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(maj, min)) {
		ret = -ENODEV;
		goto err_close;
	}
	return fd;

err_close:
	close(fd);
	return ret;
}

static int udmem_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int udmem_class_list(const char *class, char ***names)
{
	char path[128], **list, **grown;
	size_t count = 0, cap = 8;
	struct dirent *de;
	DIR *dir;
	int ret;

	if (!names)
		return -EINVAL;
	list = calloc(cap + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/sys/class/%s", class);
	dir = opendir(path);
	if (!dir) {
		if (errno == ENOENT)
			goto out;
		ret = -errno;
		goto err_free;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (count == cap) {
			grown = realloc(list, (cap * 2 + 1) * sizeof(*list));
			if (!grown) {
				ret = -ENOMEM;
				goto err_closedir;
			}
			list = grown;
			cap *= 2;
		}
		list[count] = strdup(de->d_name);
		if (!list[count]) {
			ret = -ENOMEM;
			goto err_closedir;
		}
		list[++count] = NULL;
	}
	closedir(dir);
	qsort(list, count, sizeof(*list), udmem_name_cmp);
out:
	list[count] = NULL;
	*names = list;
	return (int)count;

err_closedir:
	closedir(dir);
err_free:
	list[count] = NULL;
	udmem_list_free(list);
	return ret;
}

int udmem_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}
