# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem: numpy arrays over memory shared with hardware.

- :func:`allocate` makes a u-dma-buf buffer (through u-dma-buf-mgr) and
  returns a :class:`UdmemArray` over it, like PYNQ's ``allocate``;
- :meth:`Buffer.open` maps an existing u-dma-buf buffer (device tree,
  module parameters);
- :meth:`Region.open` maps a uiomem region (device memory);
- :mod:`udmem.dma` drives a DMA engine channel (u-dma-chan): copies and
  slave transfers between buffers, each returning a fence to ``wait()`` on;
- :mod:`udmem.iio` hands buffers' DMA-BUF exports to an IIO device's
  buffer (a converter's DMA fills them; Linux 6.11's DMABUF interface);
- :func:`import_dmabuf` gives a foreign DMA-BUF's DMA address for a buffer's
  device;
- :func:`install_sync_check_handler` makes a sync checker SIGBUS name the
  buffer, the offset and the Python line (needs libudmem).

Every array knows its ``physical_address``/``device_address`` and syncs only
its own bytes (``flush``/``invalidate``).  Closing a Buffer or Region while
numpy views of it are alive raises ``BufferError``.
"""

from . import dma, iio
from ._device import BIDIRECTIONAL, FROM_DEVICE, TO_DEVICE
from ._syncchk import install_sync_check_handler
from ._uapi import VERSION as __version__
from .array import UdmemArray
from .buffer import Buffer, allocate
from .dmabuf import DmabufImport, import_dmabuf
from .region import Region

__all__ = [
    "BIDIRECTIONAL",
    "FROM_DEVICE",
    "TO_DEVICE",
    "Buffer",
    "DmabufImport",
    "Region",
    "UdmemArray",
    "allocate",
    "dma",
    "iio",
    "import_dmabuf",
    "install_sync_check_handler",
    "__version__",
]
