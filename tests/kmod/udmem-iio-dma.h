/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmem-iio-dma.h - the IIO dmaengine buffer's set-up across kernels, for
 * tests/kmod/udmem-iio-dma.c (the one place of this module that looks at
 * the kernel's version).
 *
 *  - 6.9 on: devm_iio_dmaengine_buffer_setup() is a macro over the _ext
 *    function, which takes the buffer's direction;
 *  - 5.13 to 6.8: the function, input buffers only;
 *  - 5.10: allocate the buffer, then attach it to the device.
 *
 * uid_dmaengine_setup() returns -EOPNOTSUPP for an output buffer where the
 * kernel has none.
 */
#ifndef UDMEM_IIO_DMA_H
#define UDMEM_IIO_DMA_H

#include <linux/iio/buffer.h>
#include <linux/iio/buffer-dmaengine.h>
#include <linux/iio/iio.h>

#include "../../kernel/compat.h"

#if defined(devm_iio_dmaengine_buffer_setup)
static inline int uid_dmaengine_setup(struct device *dev, struct iio_dev *indio_dev,
				      const char *chan, bool out)
{
	return devm_iio_dmaengine_buffer_setup_ext(dev, indio_dev, chan,
						   out ? IIO_BUFFER_DIRECTION_OUT :
							 IIO_BUFFER_DIRECTION_IN);
}
#elif !UDMEM_KERNEL_BEFORE(5, 13, 0)
static inline int uid_dmaengine_setup(struct device *dev, struct iio_dev *indio_dev,
				      const char *chan, bool out)
{
	if (out)
		return -EOPNOTSUPP;
	return devm_iio_dmaengine_buffer_setup(dev, indio_dev, chan);
}
#else
static inline int uid_dmaengine_setup(struct device *dev, struct iio_dev *indio_dev,
				      const char *chan, bool out)
{
	struct iio_buffer *buffer;

	if (out)
		return -EOPNOTSUPP;
	buffer = devm_iio_dmaengine_buffer_alloc(dev, chan);
	if (IS_ERR(buffer))
		return PTR_ERR(buffer);
	indio_dev->modes |= INDIO_BUFFER_HARDWARE;
	iio_device_attach_buffer(indio_dev, buffer);
	return 0;
}
#endif

/* 6.13: MODULE_IMPORT_NS() takes a string. */
#if UDMEM_KERNEL_BEFORE(6, 13, 0)
#define UID_IMPORT_NS_DMAENGINE()	MODULE_IMPORT_NS(IIO_DMAENGINE_BUFFER)
#else
#define UID_IMPORT_NS_DMAENGINE()	MODULE_IMPORT_NS("IIO_DMAENGINE_BUFFER")
#endif

#endif /* UDMEM_IIO_DMA_H */
