// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * sysfs.c - device names, sysfs attributes and class listings.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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
