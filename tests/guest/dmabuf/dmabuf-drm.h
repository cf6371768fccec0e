/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * dmabuf-drm.h - the few DRM ioctls the dmabuf suite uses (PRIME import and
 * export, dumb buffers, GEM close), from the kernel's UAPI <drm/drm.h> and
 * <drm/drm_mode.h>: the x86_64 tool chain has no DRM headers.
 */
#ifndef DMABUF_DRM_H
#define DMABUF_DRM_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct ut_drm_gem_close {
	__u32 handle;
	__u32 pad;
};

struct ut_drm_prime_handle {
	__u32 handle;
	__u32 flags;
	__s32 fd;
};

struct ut_drm_create_dumb {
	__u32 height;
	__u32 width;
	__u32 bpp;
	__u32 flags;
	__u32 handle;
	__u32 pitch;
	__u64 size;
};

struct ut_drm_map_dumb {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

#define UT_DRM_IOCTL_GEM_CLOSE		_IOW('d', 0x09, struct ut_drm_gem_close)
#define UT_DRM_IOCTL_PRIME_HANDLE_TO_FD	_IOWR('d', 0x2d, struct ut_drm_prime_handle)
#define UT_DRM_IOCTL_PRIME_FD_TO_HANDLE	_IOWR('d', 0x2e, struct ut_drm_prime_handle)
#define UT_DRM_IOCTL_MODE_CREATE_DUMB	_IOWR('d', 0xb2, struct ut_drm_create_dumb)
#define UT_DRM_IOCTL_MODE_MAP_DUMB	_IOWR('d', 0xb3, struct ut_drm_map_dumb)

#endif /* DMABUF_DRM_H */
