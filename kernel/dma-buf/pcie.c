// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the "pci_express" bus of the PCI Express port services, so
 * that bind= and the manager can name "pci_express/<service>".  Built
 * only when the kernel has the port bus driver (CONFIG_PCIEPORTBUS);
 * udmabuf.h gives the other kernels a stub that finds no bus.
 */
#include <linux/device.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "udmabuf.h"

/*
 * The PCI Express port services ("0000:00:01.0:pcie002" and so on) sit on
 * the "pci_express" bus, whose bus_type is not exported since 6.6.  Every
 * service device is a child of its port's pci_dev, so take the bus from
 * the first child found there.
 */
static int udmabuf_pcie_child(struct device *dev, void *data)
{
	const struct bus_type **found = data;

	if (dev->bus && !strcmp(dev->bus->name, "pci_express")) {
		*found = dev->bus;
		return 1;
	}
	return 0;
}

static int udmabuf_pcie_port(struct device *dev, void *data)
{
	return device_for_each_child(dev, data, udmabuf_pcie_child);
}

const struct bus_type *udmabuf_pcie_port_bus(void)
{
	const struct bus_type *found = NULL;

	bus_for_each_dev(&pci_bus_type, NULL, &found, udmabuf_pcie_port);
	return found;
}
